# frozen_string_literal: true

require "fileutils"

module Mallard
  module Experiments
    # soak --neighbours N: N more copies of the app beside the one measured, each in the same configuration, on the
    # same CPUs and under the same load, for as long as its load runs; none of them measured, none with the agent.
    #
    # Why: a production host runs several processes of an app on CPUs they share, and what glibc keeps follows how
    # many threads run malloc at once, which that crowding sets as much as the load does. A lab whose one Puma had both
    # CPUs to itself predicted MALLOC_ARENA_MAX=2 at -46% where a fleet of eight such Pumas sharing them measured -32 to
    # -38% (bench/README.md). compare --like takes the count from production (the trees its exporter finds on one host).
    #
    # Each copy's files (its server's log, its rackup, its load's figures) are in the run directory's neighbour-N/.
    class Neighbours
      # The most copies: each is a whole server and a load tool on this machine.
      MAX = 32
      DIR = "neighbour-%d"

      Copy = Struct.new(:target, :command, :dir, :load)

      # @param target [Target::RackApp] the app measured (Target::RackApp#neighbour makes each copy)
      # @param options [SoakOptions] the measured one's: its load, boot timeout and count of neighbours
      # @param run_dir [Run::Directory]
      def initialize(target:, options:, run_dir:)
        @target = target
        @options = options
        @run_dir = run_dir
        @copies = []
      end

      # Starts every copy and waits until each is up as the measured one was.
      # @param env [Hash] their environment: the measured one's without the agent
      # @param after_boot [Hash] the configuration's action after boot, as the measured one ran it
      # @yieldparam command [Target::Command] to start where the measured one was started (its CPUs)
      # @raise [SubjectFailed] a copy that exited or never answered, named
      def start(env:, after_boot:, &starter)
        @options.neighbours.to_i.times { |index| @copies << started(index + 1, env, after_boot, &starter) }
        @copies.each do |copy|
          copy.command.wait_until_up(timeout: @options.boot_timeout, waiting_for: copy.target.method(:waiting_for)) do
            copy.target.ready?
          end
        rescue Error => e
          raise SubjectFailed, "neighbour #{File.basename(copy.dir.path)}: #{e.message}"
        end
      end

      # Their loads, as the measured one's, started just before it so that they end with it.
      def start_load
        @copies.each do |copy|
          copy.load = Workload::Http.new(url: copy.target.url, options: @options, run_dir: copy.dir)
          copy.load.start(copy.command)
        end
      end

      # Their loads stopped, each keeping its figures (its load.json).
      def stop_load = @copies.each { |copy| copy.load&.stop }

      def stop
        stop_load
        @copies.each { |copy| copy.command&.stop }
      end

      private

      def started(number, env, after_boot)
        dir = Run::Directory.new(@run_dir.file(format(DIR, number)))
        FileUtils.mkdir_p(dir.path)
        target = @target.neighbour
        copy = Copy.new(target, nil, dir)
        copy.command = yield(target.command(env: env, run_dir: dir, **after_boot))
        copy
      end
    end
  end
end
