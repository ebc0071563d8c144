# frozen_string_literal: true

module Mallard
  class CLI
    # Which target the command line names — an app directory, --url URL -- CMD, or --script FILE — and
    # the refusal of every option given that does not apply to it: an option silently ignored is a
    # run that measured something other than what was asked.
    class TargetChoice
      PUMA_ONLY = %w[--threads --workers].freeze
      # What a script, run to its end without load, has no use for.
      LOAD_ONLY = %w[--duration --requests --concurrency --path --paths --ruby-client --rate --max-errors
                     --boot-timeout --until-decided].freeze
      # What only an HTTP server's load uses.
      HTTP_ONLY = %w[--requests --concurrency --path --paths --ruby-client --rate --url --until-decided].freeze
      JOBS_ONLY = %w[--workload --redis --drain-timeout --idle --mode].freeze
      # What only an app directory mallard serves takes: it starts more copies of it.
      APP_ONLY = %w[--neighbours].freeze

      # @param subject [Hash] threads:, workers:, url:, script:
      # @param given [Set<String>] the options that appeared on the command line
      # @param user [Target::SubjectUser, Target::SubjectUser::Same]
      def initialize(subject, given, user)
        @subject = subject
        @given = given
        @user = user
      end

      # @param operands [Array<String>] what remains after options
      # @param command [Array<String>, nil] what follows `--`; nil without `--`
      # @raise [UsageError] no target, two targets, or an option that does not apply to the one given
      def build(operands, command)
        kind = kind(operands, command)
        refuse(JOBS_ONLY, "applies to a job worker (--jobs)") unless kind == :jobs
        refuse(APP_ONLY, "applies to an app directory, which mallard serves and can copy") unless kind == :rack
        case kind
        when :jobs then job_worker(operands, command)
        when :script
          refuse(PUMA_ONLY, "applies to an app directory served by Puma; a --script is not a server")
          refuse(LOAD_ONLY, "applies to a server under load; a --script runs to its end without load")
          refuse(%w[--url], "goes with -- CMD; a --script is not loaded over HTTP")
          Target::Script.new(path: @subject[:script], args: command || [], user: @user)
        when :command then server_command(command)
        else rack_app(operands.first)
        end
      end

      private

      def kind(operands, command)
        if @subject[:jobs]
          raise UsageError, "give --jobs or --script, not both" if @subject[:script]

          return :jobs
        end
        if @subject[:script]
          raise UsageError, "give --script FILE or an app directory, not both" if operands.any?

          return :script
        end
        return command_kind(operands, command) if command
        return :rack if operands.size == 1
        raise UsageError, "give an app directory, --url URL -- CMD, or --script FILE" if operands.empty?

        raise UsageError, "give one app directory, not #{operands.size}: #{operands.join(' ')}"
      end

      def command_kind(operands, command)
        raise UsageError, "-- must be followed by the server command" if command.empty?
        raise UsageError, "give an app directory or --url URL -- CMD, not both" if operands.any?

        :command
      end

      def server_command(command)
        option = PUMA_ONLY.find { |each| @given.include?(each) }
        if option
          raise UsageError, "#{option} applies to an app directory served by Puma; with -- CMD, pass the " \
                            "#{option.delete_prefix('--').chomp('s')} count in CMD"
        end
        Target::ServerCommand.new(argv: command, url: @subject[:url], user: @user)
      end

      # The worker: -- CMD, or the backend's own command in DIR (the current directory when neither is given).
      # With --idle, no workload: the backend alone.
      def job_worker(operands, command)
        refuse(HTTP_ONLY + %w[--workers], "applies to a web server; a job worker's load is its --workload")
        refuse_beside_idle(%w[--workload --duration --until-decided], "does not go with --idle (no workload, for " \
                                                                      "its DURATION)")
        unless @subject[:workload] || @subject[:idle]
          raise UsageError, "#{@given.include?('--sidekiq') ? '--sidekiq' : '--jobs'} needs --workload FILE.rb " \
                            "(a script that pushes jobs)"
        end
        raise UsageError, "give one app directory, not #{operands.size}: #{operands.join(' ')}" if operands.size > 1
        raise UsageError, "-- must be followed by the worker's command" if command&.empty?

        case @subject[:jobs]
        when "solid_queue" then solid_queue_worker(operands, command)
        when "resque" then resque_worker(operands, command)
        when "good_job" then good_job_worker(operands, command)
        else sidekiq_worker(operands, command)
        end
      end

      def sidekiq_worker(operands, command)
        refuse(%w[--mode], "applies to a Solid Queue worker (--jobs solid_queue); Sidekiq has one mode")
        if command && @given.include?("--threads")
          raise UsageError, "--threads sets the default command's -c; with -- CMD, pass -c in CMD"
        end

        Target::SidekiqWorker.new(workload: @subject[:workload], redis: redis, dir: operands.first, command: command,
                                  threads: (@subject[:threads] if @given.include?("--threads")), user: @user)
      end

      # Resque's parent runs one job at a time, each in a child of its own: more at once is more workers.
      def resque_worker(operands, command)
        refuse(%w[--mode], "applies to a Solid Queue worker (--jobs solid_queue); Resque has one mode")
        refuse(%w[--threads], "applies to Puma and Sidekiq; a Resque worker runs one job at a time")
        Target::ResqueWorker.new(workload: @subject[:workload], redis: redis, dir: operands.first, command: command,
                                 user: @user)
      end

      # The run's own Redis, or the one --redis names.
      def redis
        Target::RedisServer.check_installed! unless @subject[:redis]
        @subject[:redis] ? Target::RedisServer::Existing.new(@subject[:redis]) : Target::RedisServer.new
      end

      # GoodJob's threads are its config.good_job's; its store is a PostgreSQL server of mallard's.
      def good_job_worker(operands, command)
        refuse(%w[--threads --redis], "applies to a Sidekiq worker; GoodJob's threads are its config.good_job's")
        refuse(%w[--mode], "applies to a Solid Queue worker (--jobs solid_queue); GoodJob's one process runs its jobs")
        Target::GoodJobWorker.new(workload: @subject[:workload], server: Target::PostgresServer.new,
                                  dir: operands.first, command: command, user: @user)
      end

      # Solid Queue's threads and processes are its config/queue.yml's; its store is a SQLite file of mallard's.
      def solid_queue_worker(operands, command)
        refuse(%w[--threads --redis], "applies to a Sidekiq worker; Solid Queue's threads are its config/queue.yml's")
        mode = SolidQueueMode.parse(@subject[:mode], option: "--mode") if @subject[:mode]
        Target::SolidQueueStore.check_installed!
        Target::SolidQueueWorker.new(workload: @subject[:workload], dir: operands.first, command: command, user: @user,
                                     mode: mode)
      end

      def rack_app(dir)
        refuse(%w[--url], "goes with -- CMD, a server mallard starts from a command; an app directory is " \
                          "served on a 127.0.0.1 port mallard picks")
        Target::RackApp.new(dir: dir, threads: @subject[:threads], workers: @subject[:workers], user: @user)
      end

      def refuse_beside_idle(options, why)
        refuse(options, why) if @subject[:idle]
      end

      def refuse(options, why)
        option = options.find { |each| @given.include?(each) }
        raise UsageError, "#{option} #{why}" if option
      end
    end
  end
end
