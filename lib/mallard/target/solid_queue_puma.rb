# frozen_string_literal: true

module Mallard
  module Target
    # Solid Queue inside Puma (SolidQueueMode "puma"), started as Rails 8 deploys it: the app's Puma, in its bundle
    # where it has one, reading the app's config/puma.rb, whose `plugin :solid_queue if ENV["SOLID_QUEUE_IN_PUMA"]`
    # forks Solid Queue's supervisor once Puma has booted. Puma binds a free 127.0.0.1 port: PORT for a config/puma.rb
    # or a -- CMD that reads it (Rails 8's does), and --bind on mallard's own command line, which wins over the file's.
    class SolidQueuePuma
      # The line Rails 8 writes in config/puma.rb, with or without its condition.
      PLUGIN = /^\s*plugin[\s(]+:solid_queue\b/

      # @param command [Array<String>, nil] -- CMD; nil: the app's Puma
      # @raise [NotFound] without -- CMD, no config.ru or no Puma config loading the plugin
      def initialize(dir, command)
        @dir = dir
        @command = command
        @bundle = PumaBundle.new(dir)
        check_app! unless command
      end

      # What starts it, bound to its port once #env has picked one.
      def argv
        return @command if @command

        [*@bundle.executable, *(["--bind", "tcp://127.0.0.1:#{@port}"] if @port)]
      end

      # Picks this start's port: the environment Puma starts with.
      # @param run_dir [Run::Directory] where a Gemfile adding puma to the app's bundle goes (PumaBundle)
      def env(run_dir)
        @port = FreePort.pick
        (@command ? {} : @bundle.prepare(run_dir)).merge("PORT" => @port.to_s)
      end

      private

      def check_app!
        raise NotFound, "no config.ru in #{@dir}: in puma mode Puma serves the app" unless app_file?("config.ru")
        return if configs.any? { |file| File.read(file).match?(PLUGIN) }

        raise NotFound, "no `plugin :solid_queue` in #{@dir}/config/puma.rb: puma mode runs Solid Queue inside Puma " \
                        "as Rails 8 sets it up (`plugin :solid_queue if ENV[\"#{SolidQueueMode::IN_PUMA}\"]`)"
      end

      # The files Puma reads for an environment: config/puma/ENV.rb, else config/puma.rb.
      def configs
        files = [*Dir.glob(File.join(@dir, "config/puma/*.rb")), File.join(@dir, "config/puma.rb")]
        files.select { |file| File.file?(file) }
      end

      def app_file?(name) = File.file?(File.join(@dir, name))
    end
  end
end
