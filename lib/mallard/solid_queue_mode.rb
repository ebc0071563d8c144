# frozen_string_literal: true

module Mallard
  # What a value of `--mode` or `--modes` means for a Solid Queue worker (`soak --jobs solid_queue --mode async`,
  # `compare --jobs solid_queue --modes fork,async`): how
  # its supervisor runs the dispatcher, scheduler and workers, as solid_queue 1.7's `bin/jobs --mode` takes it:
  # - `fork`: the supervisor forks each of them as a process of its own (Solid Queue's default);
  # - `async`: it runs them as threads of its own process (AsyncSupervisor), one process in all.
  # `puma` (Solid Queue inside Puma through its plugin, Rails 8's SOLID_QUEUE_IN_PUMA) is refused: not yet.
  # It rides a comparison's rows where a Puma shape would (Experiments::Compare#rows), so it answers a shape's
  # questions too: no action after boot, no refork.
  class SolidQueueMode
    MODES = %w[fork async].freeze
    NOT_YET = { "puma" => "Solid Queue inside Puma (its plugin, SOLID_QUEUE_IN_PUMA) is not measured yet" }.freeze

    attr_reader :label

    # @param list [Array<String>] --modes' values
    # @return [Array<SolidQueueMode>]
    # @raise [UsageError] a mode not of MODES, or one named twice
    def self.parse_all(list)
      raise UsageError, "--modes names a mode twice: #{list.join(',')}" if list.uniq.size < list.size
      raise UsageError, "--modes lists no mode; name fork, async or both" if list.empty?

      list.map { |name| parse(name) }
    end

    # @param option [String] the option that named it, for a refusal
    def self.parse(name, option: "--modes")
      raise UsageError, "#{option} #{name}: #{NOT_YET[name]}" if NOT_YET.key?(name)
      raise UsageError, "#{option} takes #{MODES.join(', ')}, not #{name}" unless MODES.include?(name)

      new(name)
    end

    def initialize(label)
      @label = label
      freeze
    end

    def async? = @label == "async"

    # bin/jobs' option for this mode, as its users write it.
    def arguments = ["--mode", @label]

    # What a shape has and a mode has not (Experiments::Compare reads them of a row's shape).
    def after_boot = nil
    def refork? = false

    # What is wrong with a tree seen from outside for this mode, nil when it is right: its supervisor registered as
    # this mode's (Solid Queue's "Supervisor(fork)"), and fork's forks its dispatcher and workers while async's runs
    # them in its one process.
    # @param tree [Array<Integer>] the worker's process ids, the supervisor's first
    # @param kinds [Hash{Integer=>Array<String>}] the kinds each process registered in solid_queue_processes
    # @return [String, nil]
    def mismatch(tree, kinds)
      return if kinds.fetch(tree.first, []).include?("Supervisor(#{@label})") && shaped?(tree, kinds)

      "#{@label} mode #{async? ? 'runs in one process' : 'forks its dispatcher and workers'}, but the tree has " \
        "#{tree.size} #{tree.size == 1 ? 'process' : 'processes'} (#{described(tree, kinds)})"
    end

    private

    def shaped?(tree, kinds)
      return tree.size == 1 if async?

      forked = tree.drop(1).flat_map { |pid| kinds.fetch(pid, []) }
      forked.include?("Worker") && forked.include?("Dispatcher")
    end

    def described(tree, kinds)
      tree.map { |pid| "#{pid}: #{kinds.fetch(pid, ['unregistered']).join('+')}" }.join(", ")
    end
  end
end
