# frozen_string_literal: true

module Mallard
  module BootProbe
    # Wraps the innermost require, so that each file the boot loads is one node of the tree, read at its start
    # and its end (Agent::BootReading), its line written as it ends (Output).
    #
    # Innermost, not Kernel#require: RubyGems, Bundler, bootsnap and Zeitwerk each replace Kernel#require with
    # their own and finally call the C require, RubyGems through `gem_original_require`, which is looked up by
    # name at every call. Redefining that one method puts the hook beneath every other patch, whenever it was
    # installed: a gem's own require patch (path resolution, cache loading) runs outside the hook and is
    # charged to the file that called require, instead of to whatever file it was loading (derailed #204,
    # #208), and the hook never aliases Kernel#require, so it cannot loop with a patch that aliases it too
    # (derailed #170). `require_relative` goes to the C require without passing Kernel#require, so it is
    # wrapped too, resolving the path against its caller's file as Ruby would. Autoload calls Kernel#require,
    # so autoloaded files are seen.
    #
    # The hook's own work never counts, and stays small enough not to change the boot. Its allocations would:
    # each one brings the next minor GC nearer, and an early hook that allocated ~60 objects per require (+23%
    # allocations over a Rails boot) ran enough extra GCs to end that boot 5% lower in RSS than without it. So a
    # reading is taken into an array kept per nesting depth, statm is parsed byte by byte, and a line is one
    # format call: about 3 objects per require. Those few are counted (total_allocated_objects counts every
    # allocation, the hook's too) and written with each node, for the analysis to subtract.
    class Hook
      # A frame: id, parent id, the hook's own allocations at the start reading, then the start and end readings.
      START = 3
      FINISH = START + Agent::BootReading::FIELDS.size

      # Allocation tracing names the Ruby file whose code made each object. The objects a file's loading makes
      # inside the C require (its string literals, its classes from a C extension's Init) have no Ruby frame of
      # their own and would all be named after the hook's file; in the objects pass each require is therefore
      # called from a one-line loader compiled under the pseudo file LOADER + the required name, and
      # Analysis::RetainedByFile gives those objects to the file that name loaded.
      LOADER = "mallard-require:"

      def initialize(reading:, output:, traced: false)
        @traced = traced
        @reading = reading
        @output = output
        @frames = []
        @depth = 0
        @next_id = 0
        @own = 0
        @thread = Thread.current
      end

      def install
        hook = self
        name = Kernel.private_method_defined?(:gem_original_require) ? :gem_original_require : :require
        original = Kernel.instance_method(name)
        Kernel.send(:define_method, name) { |path| hook.measure(path) { hook.load(original, self, path) } }
        Kernel.send(:private, name)
        Kernel.send(:define_method, :require_relative) do |path|
          absolute = hook.relative_to_caller(path, caller_locations(1, 1).first)
          hook.measure(absolute) { hook.load(original, self, absolute) }
        end
        Kernel.send(:private, :require_relative)
      end

      # Objects the hook has allocated so far.
      attr_reader :own

      # The boot is over: what the probe itself requires after it (objspace) is not the app's.
      def stop
        @thread = nil
      end

      # Only the main thread's requires are nested into the tree: another thread's would interleave with them.
      # The block is yielded to, never captured: a captured block is one more object per require.
      def measure(name)
        return yield unless Thread.current.equal?(@thread)

        mark = GC.stat(:total_allocated_objects)
        frame = open_frame
        loaded = nil
        failure = nil
        begin
          @own += GC.stat(:total_allocated_objects) - mark
          loaded = yield
        rescue Exception => e # rubocop:disable Lint/RescueException -- recorded, then raised again unchanged
          failure = e.class.name
          raise
        ensure
          close_frame(name, frame, loaded, failure)
        end
      end

      # The C require, called from a loader named after the path when tracing (see LOADER).
      def load(original, receiver, path)
        return original.bind_call(receiver, path) unless @traced

        # rubocop:disable Style/EvalWithLocation -- the file name is the point: see LOADER
        loader = eval("->(o, r, p) { o.bind_call(r, p) }", TOPLEVEL_BINDING, "#{LOADER}#{path}")
        # rubocop:enable Style/EvalWithLocation
        loader.call(original, receiver, path)
      end

      # require_relative resolves against the real path of the file that called it.
      def relative_to_caller(path, location)
        base = location&.absolute_path
        raise LoadError, "cannot infer basepath" unless base

        File.expand_path(path.respond_to?(:to_path) ? path.to_path : path, File.dirname(base))
      end

      private

      def open_frame
        mark = GC.stat(:total_allocated_objects)
        frame = (@frames[@depth] ||= Array.new(FINISH + Agent::BootReading::FIELDS.size))
        @reading.take(frame, START)
        frame[0] = (@next_id += 1)
        frame[1] = @depth.zero? ? 0 : @frames[@depth - 1][0]
        frame[2] = @own + (frame[START] - mark)
        @depth += 1
        frame
      end

      def close_frame(name, frame, loaded, failure)
        mark = GC.stat(:total_allocated_objects)
        @reading.take(frame, FINISH)
        @depth -= 1
        own_in_node = @own + (frame[FINISH] - mark) - frame[2]
        if loaded
          @output.loaded(frame, name, $LOADED_FEATURES.last, own_in_node)
        else
          @output.not_loaded(frame, name, failure)
        end
        @own += GC.stat(:total_allocated_objects) - mark
      end
    end
  end
end
