# frozen_string_literal: true

require "uri"

module Mallard
  module Target
    # Any server command (`bin/rails s -p {port}`, `bundle exec puma ...`) with the URL to load;
    # {port} in the command and the URL is replaced by a free port.
    class ServerCommand
      PORT = "{port}"
      # mallard drives heavy load: only ever at this machine.
      LOCAL_HOSTS = %w[127.0.0.1 localhost ::1].freeze
      SCHEMES = %w[http https].freeze

      attr_reader :url

      # @param user [SubjectUser, SubjectUser::Same] who the command runs as
      # @raise [UsageError] no URL, or one mallard cannot or may not load
      def initialize(argv:, url:, user: SubjectUser::Same)
        raise UsageError, "a command target needs --url (e.g. --url http://127.0.0.1:{port}/)" unless url

        @argv = argv
        @url_template = url
        @user = user
        check_url
        check_port_placeholder
      end

      def kind = "command"

      # The load counts its requests from outside, so a run without mallard's agent still measures them (what the
      # agent costs, Experiments::Compare).
      def measurable_without_agent? = true

      # The command boots the app as it will: mallard has no place in it for a line to run after boot.
      def after_boot? = false

      # Its process tree is its own to shape: compare --shape is refused for it.
      def shapes? = false

      # Scrubbed for meta.json and summaries; the command run keeps its bytes. Once a port is chosen, the
      # command as it was run, never a literal {port}.
      def describe
        [argv.map { |arg| Text.scrub(arg) }.join(" "), (" (#{@user.describe})" if @user.describe)].join
      end

      def command(env:, run_dir:)
        @port = FreePort.pick.to_s
        @url = @url_template.gsub(PORT, @port)
        @user.prepare(run_dir)
        Command.new(argv, env: env.merge(@user.env),
                          log_path: run_dir.file("subject.log"),
                          spawn_options: @user.spawn_options)
      end

      def workload(options:, run_dir:, **)
        Workload::Http.new(url: @url, options: options, run_dir: run_dir)
      end

      def argv
        @port ? @argv.map { |arg| arg.gsub(PORT, @port) } : @argv
      end

      # Nothing of the run outlives the subject.
      def release = nil

      def ready?
        HttpProbe.answers?(@url)
      end

      # For a boot timeout's message: the URL that never answered.
      def waiting_for
        "no answer at #{@url}"
      end

      private

      # Checked with {port} standing for a real port, so the URL is whole.
      def check_url
        uri = URI.parse(@url_template.gsub(PORT, "1"))
        unless SCHEMES.include?(uri.scheme.to_s.downcase)
          raise UsageError, "--url must be http:// or https://, not #{@url_template}"
        end
        raise UsageError, "--url #{@url_template} has a port outside 1-65535" unless (1..65_535).cover?(uri.port)
        return if local?(uri.hostname.to_s.downcase)

        raise UsageError, "mallard loads only 127.0.0.1 or localhost, not #{uri.hostname || @url_template}"
      rescue URI::Error
        raise UsageError, "--url #{@url_template} is not a URL (e.g. http://127.0.0.1:{port}/)"
      end

      def local?(host)
        LOCAL_HOSTS.include?(host)
      end

      # {port} on one side only means the server listens on one port while mallard loads another.
      def check_port_placeholder
        in_url = @url_template.include?(PORT)
        return if in_url == @argv.any? { |arg| arg.include?(PORT) }

        where, missing = in_url ? ["--url", "the command"] : ["the command", "--url"]
        raise UsageError, "#{where} has #{PORT} but #{missing} does not; put #{PORT} in both " \
                          "(or a fixed port in both)"
      end
    end
  end
end
