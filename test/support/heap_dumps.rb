# frozen_string_literal: true

require "fileutils"
require "open3"

# Three dumps a user could take with ObjectSpace.dump_all: 2,000 strings made (made.rb:3) between the first and
# the second, held by $kept (an Array made on made.rb:1) in the third.
module HeapDumps
  # @return [Array<String>] the paths of dumps a, b and c, written under dir
  def make_dumps(dir, traced:)
    FileUtils.mkdir_p(dir)
    File.write(File.join(dir, "made.rb"), <<~RUBY)
      $kept = []
      def work(count)
        count.times { $kept << ("made" * 50) }
      end
    RUBY
    _out, err, status = Open3.capture3(Gem.ruby, "-e", dumping_code(traced), chdir: dir)
    assert status.success?, err
    %w[a b c].map { |name| File.join(dir, "#{name}.json") }
  end

  # As a dump is best taken: a GC right after it closes its generation (mallard's own dumps do the same).
  def dumping_code(traced)
    <<~RUBY
      require "objspace"
      ObjectSpace.trace_object_allocations_start if #{traced}
      require "./made"
      dump = ->(name) { GC.start; ObjectSpace.dump_all(output: File.open("\#{name}.json", "w")); GC.start }
      dump.("a")
      work(2000)
      dump.("b")
      work(500)
      dump.("c")
    RUBY
  end
end
