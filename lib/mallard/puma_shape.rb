# frozen_string_literal: true

module Mallard
  # What a value of `compare --shape` means: the process tree a Rack app is served in, `WxT` workers × threads and a
  # variant. W of 1 or more is Puma's cluster mode (a master forking W workers, so `1x5` is one worker under a master),
  # preloaded by default (`preload_app!`, Puma's `--preload`: the master loads the app before it forks and the workers
  # share its pages copy-on-write). The variants:
  # - `-nopreload`: each worker loads the app itself;
  # - `-refork[=N]`: Puma's fork_worker (`--fork-worker N`, 1000 requests unless given): worker 0 loads the app and
  #   forks the others, and once it has served N requests Puma forks them from it again (a refork), so they start from
  #   a warmed-up copy. mallard does not ask Puma to preload it: Puma 5 refuses a refork of a preloaded app (its phased
  #   restart is off under preload_app!), while Puma 6 and later preload by default in cluster mode and refork anyway;
  #   the tree is checked for what fork_worker makes (the workers children of worker 0), not for preloading;
  # - `-warmup`, `-compact`: preloaded, and the master runs Process.warmup (Ruby 3.3 and later), or a full GC and
  #   GC.compact, once the app is loaded, before it forks (Allocators::AfterBoot's actions);
  # - `-pitchfork[=N]`: Pitchfork (RubyGems' pitchfork) instead of Puma: W workers forked from a mold, one request at
  #   a time each (so T is 1), reforking after N requests (`refork_after [N]`, 1000 unless given).
  # W of 0 is Puma's single mode, one process serving T threads with no master and nothing to fork, so it takes no
  # variant. The rows, the target that starts them, their check from outside and their deploy snippets read a shape
  # through here, so it means the same everywhere.
  class PumaShape
    VARIANTS = %w[nopreload refork warmup compact pitchfork].freeze
    # The variants that refork, and take =N requests.
    REFORKING = %w[refork pitchfork].freeze
    # Requests before a refork unless =N says: Puma's own default for fork_worker, and the same for Pitchfork.
    DEFAULT_REFORK_AFTER = 1000
    FORMAT = /\A(\d{1,4})x(\d{1,5})(?:-([a-z]+)(?:=(\d{1,9}))?)?\z/
    USAGE = "--shape takes WxT (workers × threads, e.g. 2x5), or WxT-VARIANT with a variant of " \
            "#{VARIANTS.join(', ')} (refork=N and pitchfork=N: requests before a refork)".freeze

    attr_reader :workers, :threads, :variant

    # @param text [String] "2x5", "2x5-nopreload", "0x5", "2x5-refork=50", "4x1-pitchfork"
    # @raise [UsageError] a shape not of that form, or one no server here can run
    def self.parse(text)
      workers, threads, variant, after = text.to_s.match(FORMAT)&.captures
      raise UsageError, "#{USAGE}, not #{text}" unless workers && (variant.nil? || VARIANTS.include?(variant))

      after &&= Integer(after, 10)
      shape = new(Integer(workers, 10), Integer(threads, 10), variant: variant, refork_after: after)
      refusal = shape.refusal
      raise UsageError, "--shape #{text}: #{refusal}" if refusal

      shape
    end

    # @param variant [String, nil] one of VARIANTS
    # @param refork_after [Integer, nil] requests before a refork (refork and pitchfork only); nil: the default
    def initialize(workers, threads, variant: nil, refork_after: nil)
      @workers = workers
      @threads = threads
      @variant = variant
      @refork_after = refork_after
      freeze
    end

    # Whether a master forks workers (Puma's cluster mode, or Pitchfork).
    def cluster? = @workers.positive?

    # Whether mallard asks the master to load the app before it forks: Puma's cluster mode, unless -nopreload, or
    # fork_worker's, which loads it in worker 0 (see above).
    def preloaded? = cluster? && [nil, "warmup", "compact"].include?(@variant)

    # Whether the tree forks its workers again from a warmed-up one during the run: fork_worker's or Pitchfork's.
    def refork? = REFORKING.include?(@variant)

    # Requests a worker serves before the tree reforks; nil where it does not refork.
    def refork_after = (@refork_after || DEFAULT_REFORK_AFTER if refork?)

    def fork_worker? = @variant == "refork"
    def pitchfork? = @variant == "pitchfork"

    # The action the master runs after loading the app, before it forks (Allocators::AfterBoot): "warmup",
    # "compact" or nil.
    def after_boot = (@variant if %w[warmup compact].include?(@variant))

    # A row's name part, as written, with =N only where it is not the default: "2x5", "2x5-refork=50", "0x5".
    def label
      after = "=#{@refork_after}" if @refork_after && @refork_after != DEFAULT_REFORK_AFTER
      "#{@workers}x#{@threads}#{"-#{@variant}#{after}" if @variant}"
    end

    # Why the shape cannot be run; nil when it can.
    def refusal
      return "single mode (0 workers) has no master and forks nothing: no -#{@variant}" if !cluster? && @variant

      counts_refusal || variant_refusal
    end

    def ==(other) = other.is_a?(PumaShape) && label == other.label
    alias eql? ==
    def hash = label.hash

    private

    def counts_refusal
      unless @threads.between?(1, Target::RackApp::MAX_THREADS)
        return "threads must be between 1 and #{Target::RackApp::MAX_THREADS}"
      end

      "workers must be at most #{Target::RackApp::MAX_WORKERS}" if @workers > Target::RackApp::MAX_WORKERS
    end

    def variant_refusal
      return "=N (requests before a refork) goes with -refork and -pitchfork only" if @refork_after && !refork?
      return "a refork after 0 requests is none: give N of 1 or more" if @refork_after&.zero?
      return "fork_worker forks workers 1… from worker 0: give 2 or more workers" if fork_worker? && @workers < 2

      "Pitchfork serves one request at a time per worker: write #{@workers}x1" if pitchfork? && @threads != 1
    end
  end
end
