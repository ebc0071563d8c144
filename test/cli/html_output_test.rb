# frozen_string_literal: true

require "test_helper"
require "tmpdir"

# --html is checked before the run: a path it could not write would otherwise fail after the whole soak.
class HtmlOutputTest < Minitest::Test
  def setup
    @tmp = Dir.mktmpdir("mallard-html-test")
  end

  def teardown
    FileUtils.remove_entry(@tmp)
  end

  def test_a_new_file_in_an_existing_directory_passes_and_is_not_left_behind
    file = File.join(@tmp, "report.html")
    Mallard::CLI::HtmlOutput.check!(file)

    refute File.exist?(file)
  end

  def test_an_existing_file_passes_unchanged
    file = File.join(@tmp, "report.html")
    File.write(file, "earlier")
    Mallard::CLI::HtmlOutput.check!(file)

    assert_equal "earlier", File.read(file)
  end

  def test_nothing_to_check_without_html
    assert_nil Mallard::CLI::HtmlOutput.check!(nil)
  end

  # [path, what the refusal says]; /proc refuses new files even to root, whom File.writable? waves through.
  def test_places_it_cannot_write_are_refused
    [[@tmp, "is a directory"], [File.join(@tmp, "missing", "r.html"), "no directory"],
     ["/proc/mallard-report.html", "cannot write"]].each do |path, message|
      error = assert_raises(Mallard::UsageError, path) { Mallard::CLI::HtmlOutput.check!(path) }

      assert_includes error.message, message, path
    end
  end
end
