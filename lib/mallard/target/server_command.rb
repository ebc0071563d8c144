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

      def describe
        @argv.join(" ")
      end

      def command(env:, run_dir:)
        port = FreePort.pick.to_s
        @url = @url_template.gsub(PORT, port)
        host = URI(@url).host
        raise UsageError, "mallard loads only 127.0.0.1 or localhost, not #{host}" unless local?(host)

        Command.new(@argv.map { |arg| arg.gsub(PORT, port) }, env: env, log_path: run_dir.file("subject.log"))
      end

      def ready?
        HttpProbe.answers?(@url)
      end

      # For a boot timeout's message: the URL that never answered.
      def waiting_for
        "no answer at #{@url}"
      end

      private

      def local?(host)
        %w[127.0.0.1 localhost ::1 [::1]].include?(host)
      end
    end
  end
end
