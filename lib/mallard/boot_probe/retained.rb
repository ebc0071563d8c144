# frozen_string_literal: true

require "objspace"

module Mallard
  module BootProbe
    # The objects pass: one extra boot with allocation tracing on, which says which file allocated each object
    # still alive after the boot (derailed's bundle:objects view, retained side). Tracing keeps a table entry
    # per object and roughly doubles the boot's time, so this pass's memory readings are never used: the
    # memory repeats run without it.
    class Retained
      # The probe's own objects (its output, its frames, the agent's readers it loads) are not the app's.
      OWN_FILES = [File.join(__dir__, ""), File.join(File.expand_path("../agent", __dir__), "")].freeze

      def initialize
        ObjectSpace.trace_object_allocations_start
      end

      # Objects allocated during the boot and alive after it, and their memsize_of, by the Ruby file that
      # allocated them. Objects without a file were made before tracing began (Ruby's own start) or are the
      # tracer's own tables (whose memsize_of is megabytes): neither is the boot's, so they are left out, as
      # are the probe's own.
      # Internal objects (instruction sequences, method entries) are not yielded by each_object.
      # The GC runs while tracing is still on, so the entries of the objects it frees are dropped; tracing stops
      # before the walk, so the walk's own strings are not traced.
      def write(output)
        GC.start
        ObjectSpace.trace_object_allocations_stop
        files = Hash.new { |hash, file| hash[file] = [0, 0] }
        ObjectSpace.each_object do |object|
          file = ObjectSpace.allocation_sourcefile(object)
          next if file.nil? || file.start_with?(*OWN_FILES)

          entry = files[file]
          entry[0] += 1
          entry[1] += ObjectSpace.memsize_of(object)
        end
        output.write("retained", "files" => files)
      end
    end
  end
end
