# frozen_string_literal: true

module Mallard
  module Probe
    # Which Ruby a process runs, seen from outside: ask its own executable when that is a Ruby
    # (exact, and works for statically linked builds), else read the version off a mapped libruby.
    # path: the executable that answered (source "executable"), which can be started again to ask it more; nil when
    # the version came from libruby.
    RubyIdentity = Struct.new(:engine, :version, :source, :path, keyword_init: true) do
      # libruby-3.1.so.3.1.2 (Debian) or libruby.so.3.3.0 (ruby-build --enable-shared)
      self::LIBRUBY = %r{/libruby(?:-[\d.]+)?\.so\.(\d+\.\d+(?:\.\d+)?)\z}
      self::ASK = "print RUBY_ENGINE, %( ), RUBY_VERSION"

      # @return [RubyIdentity, nil] nil when the process is not a Ruby
      def self.of(proc_files, mapped_paths)
        from_executable(proc_files) || from_libruby(mapped_paths)
      end

      def self.from_executable(proc_files)
        exe = proc_files.exe
        return unless exe && File.basename(exe).match?(/ruby/)

        path = startable(exe.delete_suffix(" (deleted)"), proc_files.pid)
        engine, version = ask(path).to_s.split
        new(engine: engine, version: version, source: "executable", path: path) if version
      end

      def self.from_libruby(mapped_paths)
        version = mapped_paths.filter_map { |path| path[self::LIBRUBY, 1] }.first
        new(engine: "ruby", version: version, source: "libruby") if version
      end

      # The executable's path, or the kernel's link to it when that path is gone (a Ruby upgraded under the process).
      def self.startable(exe, pid)
        File.executable?(exe) ? exe : "/proc/#{pid}/exe"
      end

      # A clean environment, so the subject's RUBYOPT or bundler settings cannot interfere.
      def self.ask(exe)
        IO.popen({ "PATH" => "/usr/bin:/bin" }, [exe, "--disable-gems", "-e", self::ASK],
                 unsetenv_others: true, err: File::NULL, &:read)
      rescue SystemCallError
        nil
      end
    end
  end
end
