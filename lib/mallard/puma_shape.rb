# frozen_string_literal: true

module Mallard
  # What a value of `compare --shape` means: Puma's process tree for a Rack app, `WxT` workers × threads. W of 1 or
  # more is cluster mode (a master forking W workers, so `1x5` is one worker under a master), preloaded by default
  # (`preload_app!`, Puma's `--preload`: the master loads the app before it forks and the workers share its pages
  # copy-on-write); `-nopreload` has each worker load the app itself. W of 0 is Puma's single mode, one process
  # serving T threads with no master, where preloading means nothing (`0x5-nopreload` is refused). The rows, the
  # target that starts them, their check from outside and their deploy snippets read a shape through here, so it
  # means the same everywhere. Refork (fork_worker), warmup before fork and Pitchfork are not shapes (yet).
  class PumaShape
    FORMAT = /\A(\d{1,4})x(\d{1,5})(-nopreload)?\z/

    attr_reader :workers, :threads

    # @param text [String] "2x5", "2x5-nopreload", "0x5"
    # @raise [UsageError] a shape not of that form, or a count out of Target::RackApp's range
    def self.parse(text)
      workers, threads, nopreload = text.to_s.match(FORMAT)&.captures
      raise UsageError, "--shape takes WxT (workers × threads, e.g. 2x5) or WxT-nopreload, not #{text}" unless workers

      new(Integer(workers, 10), Integer(threads, 10), preload: nopreload.nil?).tap do |shape|
        refusal = shape.refusal
        raise UsageError, "--shape #{text}: #{refusal}" if refusal
      end
    end

    def initialize(workers, threads, preload: true)
      @workers = workers
      @threads = threads
      @preload = preload
      freeze
    end

    # Whether Puma runs a master and workers.
    def cluster? = @workers.positive?

    # Whether the master loads the app before it forks: cluster mode only.
    def preloaded? = cluster? && @preload

    # A row's name part, as written: "2x5", "2x5-nopreload", "0x5".
    def label = "#{@workers}x#{@threads}#{'-nopreload' if cluster? && !@preload}"

    # Why Puma cannot run this shape; nil when it can.
    def refusal
      return "single mode (0 workers) has no master to preload in; write 0x#{@threads}" if !cluster? && !@preload
      unless @threads.between?(1, Target::RackApp::MAX_THREADS)
        return "threads must be between 1 and #{Target::RackApp::MAX_THREADS}"
      end

      "workers must be at most #{Target::RackApp::MAX_WORKERS}" if @workers > Target::RackApp::MAX_WORKERS
    end

    def ==(other) = other.is_a?(PumaShape) && label == other.label
    alias eql? ==
    def hash = label.hash
  end
end
