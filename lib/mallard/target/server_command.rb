# frozen_string_literal: true

module Mallard
  module Target
    # Any server command (`bin/rails s -p {port}`, `bundle exec puma ...`) with the URL to load;
    # {port} in the command and the URL is replaced by a free port.
    class ServerCommand
      PORT = "{port}"

      attr_reader :url

      def initialize(argv:, url:)
        raise UsageError, "a command target needs --url (e.g. --url http://127.0.0.1:{port}/)" unless url

        @argv = argv
        @url_template = url
      end

      def kind = "command"

      # Scrubbed for meta.json and summaries; the command run keeps its bytes.
      def describe
        @argv.map { |arg| Text.scrub(arg) }.join(" ")
      end

      def command(env:, run_dir:)
        port = FreePort.pick.to_s
        @url = @url_template.gsub(PORT, port)
        host = URI(@url).host
        raise UsageError, "mallard loads only 127.0.0.1 or localhost, not #{host}" unless local?(host)

        Command.new(@argv.map { |arg| arg.gsub(PORT, port) }, env: env, log_path: run_dir.file("subject.log"))
      end

      def workload(options:, run_dir:)
        Workload::Http.new(url: @url, options: options, run_dir: run_dir)
      end

      def ready?
        HttpProbe.answers?(@url)
      end

      private

      def local?(host)
        %w[127.0.0.1 localhost ::1 [::1]].include?(host)
      end
    end
  end
end
