# frozen_string_literal: true

require "etc"
require "tmpdir"

module Mallard
  module Probe
    # Looks at one running process from outside (/proc) and says what memory configuration it
    # really runs with. Starts and stops the process itself when given a command.
    class Doctor
      # How long `doctor -- CMD` waits at most for the command to settle before looking anyway.
      WAIT = 30.0
      # A kernel thread's flag in /proc/PID/stat: no user memory, environment or executable to read.
      PF_KTHREAD = 0x00200000

      # @param proc_root [String] where /proc is: a test gives a stored copy of a kernel thread's files, which a
      #   container's PID namespace hides
      def initialize(catalog: Allocators::Catalog.default, proc_root: "/proc")
        @catalog = catalog
        @proc_root = proc_root
      end

      # @param expected [String, nil] catalog name the process is supposed to run under
      def diagnose(pid, expected: nil)
        files = Probe::ProcFiles.new(pid, root: @proc_root)
        raise NotFound, "no process with PID #{pid}" unless files.exist?

        refuse_unreadable(files)
        environ = files.environ
        mapped = files.mapped_paths
        build(files, environ, mapped, expected)
      end

      # Starts argv (under the allocator named, if any), follows it to the Ruby process it starts
      # (through runuser, sudo, sh -c, foreman...), looks once that has settled (and url answers, if
      # given) or `wait` seconds have passed, and stops it all, whatever happens.
      def diagnose_command(argv, allocator: nil, wait: WAIT, url: nil, env: {})
        config_env = allocator ? command_env(@catalog.fetch(allocator)) : {}
        Dir.mktmpdir("mallard-doctor") do |dir|
          subject = Target::Command.new(argv, env: env.merge(config_env), log_path: File.join(dir, "output.log"))
          begin
            look_when_settled(subject.start, allocator, wait: wait, url: url)
          ensure
            subject.stop
          end
        end
      end

      private

      def look_when_settled(subject, allocator, wait:, url:)
        started = Clock.monotonic
        settling = Probe::Settling.new(subject.pid)
        settled = subject.wait_for(timeout: wait) do
          settling.settled? && (url.nil? || Target::HttpProbe.answers?(url))
        end
        rubies = Probe::RubyProcesses.new(subject.pid)
        diagnosis = diagnose(rubies.main || subject.pid, expected: allocator)
        diagnosis.started = { pid: subject.pid, command: subject.argv }
        diagnosis.other_rubies = rubies.others.filter_map { |pid| process_line(pid) }
        diagnosis.looked = { after_s: (Clock.monotonic - started).round(1), settled: settled, url: url }
        diagnosis
      end

      def process_line(pid)
        { pid: pid, command: Probe::ProcFiles.new(pid).cmdline }
      rescue Error
        nil # gone since the tree was read
      end

      # Zombies and kernel threads exist, but hold nothing doctor reads: say what they are instead of
      # "no process", or a refusal to read files they do not have.
      def refuse_unreadable(files)
        status = files.status
        name = "PID #{files.pid} (#{status['Name']})"
        if status["State"].to_s.start_with?("Z")
          raise NotFound, "#{name} is a zombie: it has exited and waits for its parent, PID #{status['PPid']}, " \
                          "to collect its exit status; it holds no memory to diagnose"
        end
        return unless kernel_thread?(files, status)

        raise NotFound, "#{name} is a kernel thread: it has no user memory, allocator or environment to diagnose"
      end

      # "Kthread: 1" in status (Linux 6.x), else the PF_KTHREAD flag in stat.
      def kernel_thread?(files, status)
        return status["Kthread"] == "1" if status.key?("Kthread")

        flags = Probe::ProcStat.parse(files.read("stat"))[Probe::ProcStat::FLAGS]
        (Integer(flags) & PF_KTHREAD).positive?
      end

      def build(files, environ, mapped, expected)
        diagnosis = Summary::Diagnosis.new(
          pid: files.pid, command: files.cmdline, executable: files.exe,
          ruby: Probe::RubyIdentity.of(files, mapped), yjit_requested: yjit_requested?(environ, files.cmdline),
          allocator: Allocators::Detection.detect(mapped_paths: mapped, environ: environ),
          environment: Summary::Diagnosis.relevant_environment(environ),
          threads: Integer(files.status.fetch("Threads", "0")), memory: Probe::MemoryReading.of(files),
          expected: expected, catalog: @catalog.map(&:to_h), malloc_trim: trim_loaded?(mapped),
          tree: Analysis::TreeShape.call(Probe::TreeReading.read(files.pid, proc_root: @proc_root))
        )
        diagnosis.verification_problems = verify(diagnosis, environ, mapped)
        check_settings(diagnosis, environ)
        diagnosis.findings = Analysis::Findings.for(diagnosis, cpus: Etc.nprocessors)
        diagnosis
      end

      # mallard/trim's extension shows in the maps of any process that required it, however it did.
      def trim_loaded?(mapped)
        mapped.any? { |path| path.end_with?("/mallard/#{Trim::Availability::EXTENSION_NAME}") }
      end

      # The RUBY_GC_* variables, MALLOC_CONF and YJIT settings, as the process's own Ruby and allocator take them:
      # which of them a Ruby reads changes between versions, so its executable is started with them and asked.
      def check_settings(diagnosis, environ)
        return unless diagnosis.ruby?

        gc = Probe::SettingsCheck.checked(environ).sort.to_h
        yjit = Probe::YjitCheck.settings(environ, diagnosis.command)
        return diagnosis.settings = [] if gc.empty? && yjit.empty?

        ruby = diagnosis.ruby.path
        return diagnosis.settings_unchecked = "#{diagnosis.executable} is no Ruby mallard can start to ask" unless ruby

        diagnosis.settings = checked_gc_settings(ruby, diagnosis.allocator, gc) +
                             Probe::YjitCheck.call(ruby: ruby, settings: yjit)
      rescue Error => e
        diagnosis.settings_unchecked = e.message
      end

      # Under the allocator the process runs: its library preloaded again, unless the Ruby links it.
      def checked_gc_settings(ruby, allocator, settings)
        preload = allocator.path if allocator.via == "preloaded"
        Probe::SettingsCheck.call(ruby: ruby, settings: settings, malloc: allocator.name, preload: preload)
      end

      def verify(diagnosis, environ, mapped)
        return [] unless diagnosis.expected

        @catalog.fetch(diagnosis.expected).verify(diagnosis.allocator, environ, mapped_paths: mapped)
      end

      # A configuration that loads Ruby code (glibc-trim) does it through RUBYOPT, as in production.
      def command_env(config)
        config.env.merge("RUBYOPT" => config.rubyopt(ENV.fetch("RUBYOPT", nil)))
      end

      def yjit_requested?(environ, cmdline)
        environ[Probe::YjitCheck::ENABLE].to_s.match?(Probe::YjitCheck::ON) ||
          [*cmdline, *environ["RUBYOPT"].to_s.split].include?("--yjit")
      end
    end
  end
end
