# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"
require "mallard/run/heap_dump"

# Real dumps from a child that allocates known objects (test/fixtures/heap_dump/known_objects.rb), scanned by
# the C extension and by the Ruby Tally, which must agree on everything but the time taken.
class HeapDumpTest < Minitest::Test
  HeapDump = Mallard::Run::HeapDump
  CHILD = File.expand_path("../fixtures/heap_dump/known_objects.rb", __dir__)
  # Keys, escapes and numbers in the spellings the two scans could read differently.
  TOKENS = ['"generation":', '"memsize":', '"file":"', '"line":', '"class":"', '"name":"', '"type":"CLASS"',
            '"type":"MODULE"', '"type":"', '{"type":"ROOT"', "\\", '"', '\\"', '\\\\"', " ", ",", ":", "x",
            "0d12", "1_000", "1__2", "-3", "+_4", " 7", "_5", "99999999999999999", "\xFF".b, "\n"].freeze
  NUMBERS = ["0d12", "0D12", "-0d12", "0d", "0d_1", "00d1", "0_1", "0__1", "1_2_3", "1__2", "_1", "+1", "+-1",
             "- 1", " \t12", "\v\f\r 3", "12abc", "0x1f", "0b11", "0o7", "007", "1e5", "99999999999999", "-",
             "+", "", "1_", "0_d1", "-0", "9" * 20].freeze

  class << self
    # Made once for the run: a child takes a fraction of a second.
    def dumps
      @dumps ||= begin
        dir = Dir.mktmpdir("mallard-heap-dump-test")
        Minitest.after_run { FileUtils.remove_entry(dir) }
        { traced: make_dump(dir, "traced"), untraced: make_dump(dir, "untraced") }.freeze
      end
    end

    private

    # @return [Array(String, Hash)] the dump's path and what the child allocated
    def make_dump(dir, mode)
      path = File.join(dir, "#{mode}.json")
      expected = File.join(dir, "#{mode}-expected.json")
      output, status = Timeout.timeout(30) { Open3.capture2e(Gem.ruby, CHILD, path, expected, mode) }
      raise "#{CHILD} failed: #{output}" unless status.success?

      [path, JSON.parse(File.read(expected))]
    end
  end

  def setup
    @tmp = Dir.mktmpdir("mallard-heap-dump-test")
  end

  def teardown
    FileUtils.remove_entry(@tmp)
  end

  def test_the_c_scan_and_the_ruby_tally_agree_on_real_dumps
    path, expected = self.class.dumps[:traced]
    first, last = expected.values_at("first_gc", "last_gc")
    windows = [nil, first..last, (first + 1)..last, (first - 1)..., ..last, first...first, nil..nil, 0.5..last]

    windows.each { |window| assert_same_scans(path, window) }
    assert_same_scans(self.class.dumps[:untraced].first, first..last)
  end

  def test_the_known_sites_hold_what_the_child_allocated
    path, expected = self.class.dumps[:traced]

    scanners.each do |scanner|
      scan = HeapDump.scan(path, window: expected["first_gc"]..expected["last_gc"], scanner: scanner)
      { "strings" => "String", "widgets" => "Widget" }.each do |known, class_name|
        site = expected.fetch(known)
        counts = counts_at(scan, expected["file"], site["line"], class_name)

        assert_equal [site["count"], site["memsize"]], counts, "#{known} by #{scanner}"
      end
    end
  end

  def test_a_dump_is_tallied_whole
    path, expected = self.class.dumps[:traced]
    scan = HeapDump.scan(path, window: expected["first_gc"]..expected["last_gc"])
    lines = File.foreach(path).reject { |line| line.start_with?('{"type":"ROOT"') }

    assert scan.traced?
    assert_equal File.size(path), scan.bytes
    assert_equal lines.size, scan.objects
    assert_equal scan.generations.keys.max, scan.max_generation
    assert_operator scan.max_generation, :>, expected["last_gc"], "GC.start ran after the allocations"
  end

  def test_classes_and_modules_are_named
    path, = self.class.dumps[:traced]
    scan = HeapDump.scan(path)

    assert_includes scan.classes.values, "Kernel"
    assert_includes scan.classes.values, "Widget"
    assert(scan.classes.keys.all? { |address| address.start_with?("0x") })
  end

  # The tricky string's value spells "generation":999, "memsize":1, "file":..., quotes and backslashes.
  def test_string_values_are_never_read_as_keys
    path, expected = self.class.dumps[:traced]

    scanners.each do |scanner|
      scan = HeapDump.scan(path, window: expected["first_gc"]..expected["last_gc"], scanner: scanner)

      refute_includes scan.generations.keys, 999
      assert_equal [1, expected.dig("tricky", "memsize")],
                   counts_at(scan, expected["file"], expected.dig("tricky", "line"), "String")
      refute(scan.sites.keys.any? { |file, _, _| file == "x.rb" })
    end
  end

  # Ruby 3.1 writes a file name unescaped, so one holding a quote ends there; a Ruby that escapes it gives all.
  def test_a_file_name_with_a_quote
    path, expected = self.class.dumps[:traced]
    scan = HeapDump.scan(path, window: expected["first_gc"]..expected["last_gc"])
    files = scan.sites.select { |(_, line, klass), _| line == 1 && scan.classes[klass] == "String" }
                .to_h { |(file, _, _), (count, _)| [file, count] }

    assert_equal 5, files["we\"ird.rb"] || files["we"], files.inspect
  end

  def test_a_dump_without_allocation_tracing_has_no_generations
    path, expected = self.class.dumps[:untraced]

    scanners.each do |scanner|
      scan = HeapDump.scan(path, window: 0.., scanner: scanner)

      refute scan.traced?
      assert_nil scan.max_generation
      assert_empty scan.generations
      assert_empty scan.sites
      assert_includes scan.classes.values, "Widget"
      assert_operator scan.objects, :>, expected.dig("strings", "count")
    end
  end

  def test_a_missing_file_or_a_directory_raises_not_found
    scanners.each do |scanner|
      error = assert_raises(Mallard::NotFound) { HeapDump.scan(File.join(@tmp, "gone.json"), scanner: scanner) }
      assert_equal "cannot read heap dump #{File.join(@tmp, 'gone.json')}: No such file or directory", error.message
      assert_raises(Mallard::NotFound) { HeapDump.scan(@tmp, scanner: scanner) }
    end
  end

  # Lines cut short, keys where values belong, stray quotes and backslashes, numbers Ruby's to_i reads its way.
  def test_damaged_lines_scan_alike
    random = Random.new(1124)
    lines = File.foreach(self.class.dumps[:traced].first, mode: "rb").first(4000)
    damaged = lines.map { |line| damage(line, random) } + number_lines + ["", "\n", "{}", "{\"a", "ab\n"]
    File.binwrite(path = File.join(@tmp, "damaged.json"), damaged.join("\n"))

    [nil, nil..nil, 3..40, 5...6, -5..0, ..7, 12..].each { |window| assert_same_scans(path, window) }
  end

  # As a process killed while dumping leaves it; a file name a newer Ruby escapes, ending in a backslash.
  def test_a_dump_cut_short_and_an_escaped_backslash
    File.binwrite(path = File.join(@tmp, "cut.json"), <<~'JSON'.chomp)
      {"address":"0x1", "type":"STRING", "class":"0x2", "file":"dir\\", "line":1, "generation":3, "memsize":40}
      {"address":"0x3", "type":"CLASS", "class":"0x4", "name":"Cut
    JSON

    scanners.each do |scanner|
      scan = HeapDump.scan(path, window: 3..3, scanner: scanner)

      assert_equal 2, scan.objects
      assert_equal({ "0x3" => nil }, scan.classes, "the name's closing quote is missing")
      assert_equal({ ["dir\\", 1, "0x2"] => [1, 40] }, scan.sites)
    end
  end

  # Ruby 3.3's dump_all writes its object shapes too, as dump lines that are no objects (nor classes).
  def test_shapes_are_no_objects
    File.write(path = File.join(@tmp, "shapes.json"), <<~JSON)
      {"type":"ROOT", "root":"vm", "references":["0x7f0000000001"]}
      {"address":"0x7f0000000001", "type":"CLASS", "shape_id":0, "slot_size":160, "class":"0x7f0000000002", "name":"Shaped", "references":[], "file":"a.rb", "line":1, "generation":2, "memsize":100}
      {"address":"0x7f0000000003", "type":"OBJECT", "shape_id":1, "slot_size":40, "class":"0x7f0000000001", "ivars":1, "file":"a.rb", "line":2, "generation":2, "memsize":40}
      {"address":"0x5600000001", "type":"SHAPE", "id":0, "parent_id":null, "depth":0, "shape_type":"ROOT", "edges":1, "memsize":120}
      {"address":"0x5600000002", "type":"SHAPE", "id":1, "parent_id":0, "depth":1, "shape_type":"IVAR", "edge_name":"@a", "edges":0, "memsize":40}
    JSON

    scanners.each do |scanner|
      scan = HeapDump.scan(path, window: 2..2, scanner: scanner)

      assert_equal 2, scan.objects, scanner.name
      assert_equal({ "0x7f0000000001" => "Shaped" }, scan.classes)
      assert_equal({ 2 => [2, 140] }, scan.generations)
    end
  end

  # A CLASS line of 3 MB, longer than the C scan's first buffer, and a last line without its newline.
  def test_a_line_longer_than_the_read_buffer
    references = Array.new(200_000) { |i| format('"0x%012x"', i) }.join(", ")
    File.write(path = File.join(@tmp, "long.json"), <<~JSON.chomp)
      {"address":"0x7f0000000001", "type":"CLASS", "class":"0x7f0000000002", "name":"Huge", "references":[#{references}], "file":"huge.rb", "line":3, "generation":4, "memsize":5000, "flags":{}}
      {"address":"0x7f0000000003", "type":"OBJECT", "class":"0x7f0000000001", "file":"huge.rb", "line":9, "generation":4, "memsize":40}
    JSON
    scan = HeapDump.scan(path, window: 4..4)

    assert_operator File.size(path), :>, 3_000_000
    assert_equal({ "0x7f0000000001" => "Huge" }, scan.classes)
    assert_equal({ 4 => [2, 5040] }, scan.generations)
    assert_equal [1, 40], scan.sites[["huge.rb", 9, "0x7f0000000001"]]
    assert_same_scans(path, 4..4)
  end

  private

  def scanners
    skip "mallard/heap_scan_ext: #{HeapDump::Extension.unavailable_reason}" unless HeapDump::Extension.available?

    [HeapDump::Extension, HeapDump::Tally]
  end

  def assert_same_scans(path, window)
    c_scan, ruby_scan = scanners.map { |scanner| HeapDump.scan(path, window: window, scanner: scanner).to_h }

    HeapDump::Scan.members.each do |field|
      next if field == :seconds

      expected = ruby_scan[field]
      actual = c_scan[field]
      message = "#{field} of #{path} in window #{window.inspect}"
      expected.nil? ? assert_nil(actual, message) : assert_equal(expected, actual, message)
    end
  end

  def class_address(scan, name)
    addresses = scan.classes.select { |_, class_name| class_name == name }.keys

    assert_equal 1, addresses.size, "one class named #{name}"
    addresses.first
  end

  def counts_at(scan, file, line, class_name)
    scan.sites.fetch([file, line, class_address(scan, class_name)])
  end

  def damage(line, random)
    case random.rand(4)
    when 0 then line.byteslice(0, random.rand(line.bytesize))
    when 1 then line
    else
      at = random.rand(line.bytesize)
      line.byteslice(0, at) + TOKENS.sample(random: random) + line.byteslice(at + random.rand(4), line.bytesize).to_s
    end
  end

  def number_lines
    NUMBERS.flat_map do |number|
      ["{\"address\":\"0x1\", \"type\":\"OBJECT\", \"class\":\"0x2\", \"file\":\"n.rb\", \"line\":#{number}, " \
       "\"generation\":#{number}, \"memsize\":#{number}}",
       "{\"address\":\"0x1\", \"generation\":#{number}}"]
    end
  end
end
