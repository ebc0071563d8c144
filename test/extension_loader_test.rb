# frozen_string_literal: true

require "test_helper"
require "tmpdir"

# An extension in lib/mallard is loaded only into the Ruby its extensions.abi names; one built for the running
# Ruby in the cache (MALLARD_EXT_DIR) comes first.
class ExtensionLoaderTest < Minitest::Test
  LIB = File.join(Processes::ROOT, "lib")
  NAME = "heap_scan_ext"
  CODE = 'require "mallard/extension_loader"; ext, why = Mallard::ExtensionLoader.load("heap_scan_ext", ' \
         ":HeapScanExt); p [ext.nil?, why, $LOADED_FEATURES.grep(/heap_scan_ext/).map { |f| File.dirname(f) }]"

  def test_lib_mallards_copy_loads_only_into_the_ruby_it_names
    Dir.mktmpdir do |dir|
      lib = copy_lib(dir)
      File.write(File.join(lib, "mallard", "extensions.abi"), "2.7.0-p0-elsewhere\n")
      refused, why, loaded = answer(lib, File.join(dir, "cache"))

      assert refused
      assert_match(/built for another Ruby \(2\.7\.0-p0-elsewhere\), not this one \(#{RUBY_VERSION}/o, why)
      assert_empty loaded

      File.write(File.join(lib, "mallard", "extensions.abi"), "#{Mallard::ExtensionAbi.key}\n")

      assert_equal [false, nil, [File.join(lib, "mallard")]], answer(lib, File.join(dir, "cache"))
    end
  end

  def test_the_cache_for_this_ruby_comes_first
    Dir.mktmpdir do |dir|
      lib = copy_lib(dir)
      cache = File.join(dir, "cache")
      built, = Open3.capture2({ "MALLARD_EXT_DIR" => cache }, RbConfig.ruby, "--disable-gems", "-I", lib,
                              "-rmallard/extension_abi", "-e", "print Mallard::ExtensionAbi.dir")
      FileUtils.mkdir_p(File.join(built, "mallard"))
      FileUtils.cp(File.join(LIB, "mallard", "#{NAME}.so"), File.join(built, "mallard"))

      assert_equal [false, nil, [File.join(built, "mallard")]], answer(lib, cache)
    end
  end

  private

  def copy_lib(dir)
    lib = File.join(dir, "lib")
    FileUtils.mkdir_p(File.join(lib, "mallard"))
    %W[extension_loader.rb extension_abi.rb version.rb #{NAME}.so].each do |file|
      FileUtils.cp(File.join(LIB, "mallard", file), File.join(lib, "mallard"))
    end
    lib
  end

  def answer(lib, cache)
    out, err, status = Open3.capture3({ "MALLARD_EXT_DIR" => cache, "RUBYOPT" => nil }, RbConfig.ruby,
                                      "--disable-gems", "-I", lib, "-e", CODE)
    assert_predicate status, :success?, err
    eval(out) # rubocop:disable Security/Eval -- p's output of plain strings and arrays
  end
end
