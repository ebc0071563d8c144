# frozen_string_literal: true

require "test_helper"
require "open3"
require "tmpdir"

# Classes named, never left as addresses: a dump's CLASS, MODULE and ICLASS records name what an object's class
# address points to — an anonymous class by what it derives from, a singleton class by its object's class, a module
# as included by the module — by both scans alike.
class HeapClassNamesTest < Minitest::Test
  CODE = <<~'RUBY'
    require "objspace"
    require "json"
    module Named; end
    class Base; end
    anonymous = Class.new(Base).new
    special = Base.new
    def special.only_mine = nil
    ObjectSpace.dump_all(output: File.open(ARGV[0], "w"))
    puts JSON.generate("anonymous" => ObjectSpace.dump(anonymous)[/"class":"(0x\h+)"/, 1],
                       "singleton" => ObjectSpace.dump(special)[/"class":"(0x\h+)"/, 1])
  RUBY

  def test_classes_without_a_name_are_named_by_what_they_derive_from_by_both_scans
    Dir.mktmpdir do |dir|
      path = File.join(dir, "dump.json")
      out, err, status = Open3.capture3(Gem.ruby, "-e", CODE, path)
      assert status.success?, err
      addresses = JSON.parse(out)
      iclass = File.foreach(path).find { |line| line.include?('"type":"ICLASS"') }[/"address":"(0x\h+)"/, 1]

      scanners.each do |scanner|
        scan = Mallard::Run::HeapDump.scan(path, scanner: scanner)
        assert_equal "anonymous < Base", scan.class_name(addresses["anonymous"]), scanner
        assert_equal "Base (singleton)", scan.class_name(addresses["singleton"]), scanner
        assert_match(/ \(included\)\z/, scan.class_name(iclass), scanner)
        assert_equal "(internal)", scan.class_name("0x8")
      end
    end
  end

  private

  def scanners
    extension = Mallard::Run::HeapDump::Extension
    [Mallard::Run::HeapDump::Tally, (extension if extension.available?)].compact
  end
end
