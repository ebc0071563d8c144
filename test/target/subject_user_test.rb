# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"

# --user: checked before anything starts, and the subject really runs as that user. The real runs
# need root (mallard refuses --user otherwise) and are skipped without it.
class SubjectUserTest < Minitest::Test
  include Processes

  APPS = File.expand_path("../fixtures/apps", __dir__)
  USER = "nobody"

  def setup
    super
    @tmp = Dir.mktmpdir("mallard-user-test")
    File.chmod(0o755, @tmp) # mktmpdir makes it 0700: no other user could enter
  end

  def teardown
    FileUtils.remove_entry(@tmp)
    super
  end

  def test_an_unknown_user_is_refused
    error = assert_raises(Mallard::UsageError) { Mallard::Target::SubjectUser.resolve("mallard-no-such-user") }

    assert_equal "--user mallard-no-such-user: no such user", error.message
  end

  def test_without_root_it_is_refused_saying_why
    error = assert_raises(Mallard::UsageError) { Mallard::Target::SubjectUser.resolve(USER, euid: 65_534) }

    assert_match(/--user needs mallard to run as root \(it runs as nobody\)/, error.message)
  end

  def test_a_user_is_found_by_name_or_id
    user = Mallard::Target::SubjectUser.resolve("65534", euid: 0)

    assert_equal 65_534, user.uid
    assert_equal({ uid: user.uid, gid: user.gid }, user.spawn_options)
    assert_equal user.name, user.env["USER"]
  end

  def test_a_run_directory_the_user_cannot_reach_is_refused_before_it_is_made
    root_only
    hidden = File.join(@tmp, "hidden")
    Dir.mkdir(hidden, 0o700)
    user = Mallard::Target::SubjectUser.resolve(USER)

    error = assert_raises(Mallard::UsageError) { user.check_reach!(File.join(hidden, "runs", "one")) }
    assert_includes error.message, "--user nobody may not enter #{hidden}"
    assert_empty Dir.children(hidden)
    user.check_reach!(File.join(@tmp, "runs", "one"))
  end

  # The app refuses to boot as root: it is served, and writes the agent's records, only as the user.
  def test_an_app_that_refuses_root_is_soaked_as_the_user
    root_only
    out, err, status = mallard("soak", File.join(APPS, "unprivileged"), "--user", USER, "--duration", "2",
                               "--json", "--out", File.join(@tmp, "run"))
    summary = JSON.parse(out)

    assert_equal 0, status.exitstatus, err
    assert_operator summary.dig("load", "requests"), :>, 0
    assert_equal 0, summary.dig("load", "errors")
    assert_includes summary.dig("target", "description"), "as nobody"
    assert_operator File.size(File.join(@tmp, "run", "agent.jsonl")), :>, 0, "the subject wrote its records"
  end

  def test_the_same_app_without_user_fails_as_root
    root_only
    _out, err, status = mallard("soak", File.join(APPS, "unprivileged"), "--duration", "2",
                                "--out", File.join(@tmp, "run"))

    assert_equal 69, status.exitstatus
    assert_includes err, "refusing to run as root"
  end

  private

  def root_only
    skip "needs root: --user switches users" unless Process.euid.zero?
  end
end
