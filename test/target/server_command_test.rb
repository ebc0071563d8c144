# frozen_string_literal: true

require "test_helper"
require "tmpdir"

# A server command and its --url, checked when the target is built — before any run directory exists.
class ServerCommandTest < Minitest::Test
  COMMAND = %w[puma --bind tcp://127.0.0.1:{port}].freeze

  def test_local_urls_in_any_case_are_accepted
    %w[http://127.0.0.1:{port}/ http://LOCALHOST:{port}/health HTTP://Localhost:{port} http://[::1]:{port}/
       https://localhost:{port}/].each do |url|
      assert_equal "command", Mallard::Target::ServerCommand.new(argv: COMMAND, url: url).kind, url
    end
  end

  def test_a_fixed_port_on_both_sides_is_accepted
    target = Mallard::Target::ServerCommand.new(argv: %w[puma -p 3000], url: "http://127.0.0.1:3000/")

    assert_equal "puma -p 3000", target.describe
  end

  # [url, what the refusal says]
  BAD = [
    [nil, "needs --url"], ["ftp://127.0.0.1:{port}/", "http:// or https://"], ["127.0.0.1:{port}", "http://"],
    ["http://127.0.0.1:99999/", "port outside 1-65535"], ["http://127.0.0.1:0/", "port outside"],
    ["http://exa mple/", "is not a URL"], ["http:///path", "loads only 127.0.0.1 or localhost"],
    ["http://10.0.0.1:{port}/", "not 10.0.0.1"], ["http://localhost.example.com:{port}/", "loads only"]
  ].freeze

  def test_urls_mallard_cannot_or_may_not_load_are_refused
    BAD.each do |url, message|
      argv = url.to_s.include?("{port}") ? COMMAND : %w[puma -p 3000]
      error = assert_raises(Mallard::UsageError, url.inspect) { build(argv, url) }

      assert_includes error.message, message, url.inspect
    end
  end

  # One side only: the server would listen on one port while mallard loads another, until the boot timeout.
  def test_port_placeholder_on_one_side_only_is_refused
    assert_raises(Mallard::UsageError) { build(%w[puma], "http://127.0.0.1:{port}/") }
    assert_raises(Mallard::UsageError) { build(COMMAND, "http://127.0.0.1:3000/") }
  end

  def test_the_port_is_filled_in_on_both_sides
    Dir.mktmpdir do |dir|
      target = Mallard::Target::ServerCommand.new(argv: COMMAND, url: "http://LOCALHOST:{port}/")
      command = target.command(env: {}, run_dir: Mallard::Run::Directory.new(dir))
      port = target.url[/:(\d+)/, 1]

      assert_equal ["puma", "--bind", "tcp://127.0.0.1:#{port}"], command.argv
    end
  end

  private

  def build(argv, url)
    Mallard::Target::ServerCommand.new(argv: argv, url: url)
  end
end
