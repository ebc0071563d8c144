# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"

# /proc files of a process hold whatever bytes it was started with or mapped: what ProcFiles returns is
# valid UTF-8 (a stray byte as \xFF), so a diagnosis can always be written as JSON.
class ProcFilesTest < Minitest::Test
  PID = 4242

  def setup
    @root = Dir.mktmpdir("mallard-proc-files-test")
    @dir = File.join(@root, PID.to_s)
    Dir.mkdir(@dir)
    File.binwrite(File.join(@dir, "cmdline"), "ruby\0app \xff\0")
    File.binwrite(File.join(@dir, "environ"), "LD_PRELOAD=/opt/lib\xfe.so\0MALLOC_ARENA_MAX=2\0")
    File.binwrite(File.join(@dir, "maps"),
                  "7f00-7f01 r-xp 00000000 08:01 42  /opt/libjemalloc\xfd.so.2\n" \
                  "7f02-7f03 r-xp 00000000 08:01 43  /usr/lib/libc.so.6\n")
    File.symlink("/usr/bin/ruby \xfc", File.join(@dir, "exe"))
  end

  def teardown
    FileUtils.remove_entry(@root)
  end

  def test_command_line_environment_and_mapped_paths_come_back_scrubbed
    files = Mallard::Probe::ProcFiles.new(PID, root: @root)

    assert_equal ["ruby", "app \\xFF"], files.cmdline
    assert_equal({ "LD_PRELOAD" => "/opt/lib\\xFE.so", "MALLOC_ARENA_MAX" => "2" }, files.environ)
    assert_equal ["/opt/libjemalloc\\xFD.so.2", "/usr/lib/libc.so.6"], files.mapped_paths
    assert_equal "/usr/bin/ruby \\xFC", files.exe
    assert JSON.generate([files.cmdline, files.environ, files.mapped_paths, files.exe])
  end

  # Detection still reads its signatures from a scrubbed path.
  def test_an_allocator_mapped_from_a_path_that_is_not_utf8_is_still_detected
    files = Mallard::Probe::ProcFiles.new(PID, root: @root)
    detection = Mallard::Allocators::Detection.detect(mapped_paths: files.mapped_paths, environ: files.environ,
                                                      system_preload: [])

    assert_equal "jemalloc", detection.name
    assert_equal "/opt/libjemalloc\\xFD.so.2", detection.path
  end
end
