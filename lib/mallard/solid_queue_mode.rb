# frozen_string_literal: true

module Mallard
  # What a value of `--mode` or `--modes` means for a Solid Queue worker (`soak --jobs solid_queue --mode async`,
  # `compare --jobs solid_queue --modes fork,async,puma`): how its supervisor runs the dispatcher, scheduler and
  # workers, and what starts it:
  # - `fork`: `bin/jobs --mode fork`, the supervisor forks each of them as a process of its own (Solid Queue's default);
  # - `async`: `bin/jobs --mode async`, it runs them as threads of its process (AsyncSupervisor), one process in all;
  # - `puma`: Solid Queue inside Puma, as Rails 8 deploys it (config/puma.rb's `plugin :solid_queue` under
  #   SOLID_QUEUE_IN_PUMA): Puma, which registers nothing, forks a supervisor in fork mode (the plugin's default) once
  #   it has booted, and that supervisor forks the rest.
  # It rides a comparison's rows where a Puma shape would (Experiments::Compare#rows), so it answers a shape's
  # questions too: no action after boot, no refork.
  class SolidQueueMode
    MODES = %w[fork async puma].freeze
    # What each mode's tree is, for a tree that is not.
    TREES = { "fork" => "forks its dispatcher and workers", "async" => "runs in one process",
              "puma" => "forks a fork-mode supervisor from Puma, which registers nothing" }.freeze
    # Rails 8's config/puma.rb loads Solid Queue's plugin when this is set at all.
    IN_PUMA = "SOLID_QUEUE_IN_PUMA"

    attr_reader :label

    # @param list [Array<String>] --modes' values
    # @return [Array<SolidQueueMode>]
    # @raise [UsageError] a mode not of MODES, or one named twice
    def self.parse_all(list)
      raise UsageError, "--modes names a mode twice: #{list.join(',')}" if list.uniq.size < list.size
      raise UsageError, "--modes lists no mode; name #{MODES.join(', ')} or several" if list.empty?

      list.map { |name| parse(name) }
    end

    # @param option [String] the option that named it, for a refusal
    def self.parse(name, option: "--modes")
      raise UsageError, "#{option} takes #{MODES.join(', ')}, not #{name}" unless MODES.include?(name)

      new(name)
    end

    def initialize(label)
      @label = label
      freeze
    end

    def async? = @label == "async"

    # Started by Puma, not by bin/jobs.
    def puma? = @label == "puma"

    # bin/jobs' option for this mode, as its users write it (puma's is Puma's command line, not bin/jobs').
    def arguments = ["--mode", @label]

    # The environment that sets the mode where its command line does not: Solid Queue's SOLID_QUEUE_SUPERVISOR_MODE
    # for bin/jobs or -- CMD, Rails 8's SOLID_QUEUE_IN_PUMA for Puma.
    def env = puma? ? { IN_PUMA => "1" } : { "SOLID_QUEUE_SUPERVISOR_MODE" => @label }

    # What a shape has and a mode has not (Experiments::Compare reads them of a row's shape).
    def after_boot = nil
    def refork? = false

    # The processes of a tree that register in solid_queue_processes: all of them, but Puma (the root) in puma mode.
    # @param tree [Array<Integer>] the root first
    def registering(tree) = puma? ? tree.drop(1) : tree

    # What is wrong with a tree seen from outside for this mode, nil when it is right: its supervisor registered as
    # its mode's (Solid Queue's "Supervisor(fork)"), fork's forks its dispatcher and workers while async's runs them in
    # its one process, and puma's root registers nothing while a fork-mode supervisor under it forks the rest.
    # @param tree [Array<Integer>] the worker's process ids, the root first
    # @param kinds [Hash{Integer=>Array<String>}] the kinds each process registered in solid_queue_processes
    # @return [String, nil]
    def mismatch(tree, kinds)
      return if shaped?(tree, kinds)

      "#{@label} mode #{TREES.fetch(@label)}, but the tree has #{tree.size} " \
        "#{tree.size == 1 ? 'process' : 'processes'} (#{described(tree, kinds)})"
    end

    private

    def shaped?(tree, kinds)
      return hosted?(tree, kinds) if puma?
      return false unless supervisor?(tree.first, kinds, @label)

      async? ? tree.size == 1 : forks_its_parts?(tree.drop(1), kinds)
    end

    # Puma's tree: the root unregistered, one fork-mode supervisor under it, its dispatcher and workers forked.
    def hosted?(tree, kinds)
      root, *under = tree
      supervisors = under.select { |pid| supervisor?(pid, kinds, "fork") }
      !kinds.key?(root) && supervisors.size == 1 && forks_its_parts?(under - supervisors, kinds)
    end

    def supervisor?(pid, kinds, mode) = kinds.fetch(pid, []).include?("Supervisor(#{mode})")

    def forks_its_parts?(forked, kinds)
      registered = forked.flat_map { |pid| kinds.fetch(pid, []) }
      registered.include?("Worker") && registered.include?("Dispatcher")
    end

    def described(tree, kinds)
      tree.map { |pid| "#{pid}: #{kinds.fetch(pid, ['unregistered']).join('+')}" }.join(", ")
    end
  end
end
