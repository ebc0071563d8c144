# frozen_string_literal: true

require "open3"

module Mallard
  module Probe
    # Whether a process's YJIT settings take effect, asked of its own Ruby: RUBY_YJIT_ENABLE and each YJIT option in
    # RUBYOPT or on its command line, one start of that Ruby each, with that setting alone. Rubies differ where it
    # matters: 3.1 turns YJIT on for any value of RUBY_YJIT_ENABLE (0 included) and 3.3 for 1 or true only; 3.3
    # refuses an option it does not have (--yjit-mem-size is 3.4's) and does not start; a Ruby built without YJIT
    # has no RubyVM::YJIT and reads none of them. Only what the Ruby does at its start is known here: an app may
    # still turn YJIT on later (RubyVM::YJIT.enable, as Rails 7.2 does).
    module YjitCheck
      ENABLE = "RUBY_YJIT_ENABLE"
      # The values of RUBY_YJIT_ENABLE that mean on in every Ruby (3.1 takes any value as on, 3.3 these only).
      ON = /\A(?:1|true)\z/
      # --yjit, --yjit-exec-mem-size=64, --yjit-disable, --jit, --enable-yjit, --enable=yjit, --disable-jit …
      OPTION = /\A--(?:yjit(?:-[a-z-]+)?(?:=\S*)?|jit|(?:enable|disable)[-=](?:yjit|jit))\z/
      ASK = ["--disable-gems", "-e", "print defined?(RubyVM::YJIT) ? RubyVM::YJIT.enabled? : :none"].freeze
      CLEAN = { "RUBYOPT" => nil, "RUBYLIB" => nil, ENABLE => nil }.freeze

      module_function

      # The YJIT settings a process runs with: RUBY_YJIT_ENABLE, then the YJIT options of RUBYOPT and of its command
      # line (the options before its first operand: after that they are the program's own).
      # @param environ [Hash{String=>String}]
      # @param cmdline [Array<String>]
      # @return [Array(String, String)] name and value: ["RUBY_YJIT_ENABLE", "1"], ["--yjit-exec-mem-size", "64"],
      #   ["--yjit", nil]
      def settings(environ, cmdline)
        options = environ["RUBYOPT"].to_s.split + cmdline.drop(1).take_while { |arg| arg.start_with?("-") }
        from_options = options.grep(OPTION).uniq.map { |option| option.split("=", 2).values_at(0, 1) }
        (environ.key?(ENABLE) ? [[ENABLE, environ[ENABLE]]] : []) + from_options
      end

      # @param ruby [String] the process's Ruby
      # @param settings [Array(String, String)] as #settings gives them
      # @return [Array<Summary::SettingCheck>] status "read" (read: "on" or "off", YJIT at the Ruby's start with it),
      #   "ignored" (YJIT stayed off and the Ruby said why: reason), "unread" (no YJIT in this Ruby; reason: what it
      #   said, if anything) or "invalid" (the Ruby refused to start: reason, in its words)
      def call(ruby:, settings:)
        settings.map { |name, value| check(ruby, name, value) }
      end

      def check(ruby, name, value)
        out, said, status = ask(ruby, name, value)
        return setting(name, value, "invalid", reason: said) unless status.success?
        return setting(name, value, "unread", reason: said) if out == "none"

        yjit = out == "true" ? "on" : "off"
        return setting(name, value, "ignored", read: yjit, reason: said) if said && yjit == "off"

        setting(name, value, "read", read: yjit)
      end

      # What the Ruby printed on stdout (true, false or none), what it said on stderr (nil: nothing), and its status.
      def ask(ruby, name, value)
        env = name == ENABLE ? { ENABLE => value } : {}
        option = name == ENABLE ? [] : [[name, value].compact.join("=")]
        out, err, status = Open3.capture3(CLEAN.merge(env), ruby, *option, *ASK)
        [out, said(err, ruby), status]
      rescue SystemCallError => e
        raise Error, "could not start #{ruby} to check the YJIT settings: #{e.message}"
      end

      # Ruby's own lines, without the program name each begins with.
      def said(err, ruby)
        text = Text.scrub(err).lines(chomp: true).map { |line| line.sub(/\A(?:#{Regexp.escape(ruby)}|ruby): /, "") }
        text.reject(&:empty?).join("; ") unless text.all?(&:empty?)
      end

      def setting(name, value, status, **found)
        Summary::SettingCheck.new(name: name, value: value, status: status, **found)
      end

      private_class_method :check, :ask, :said, :setting
    end
  end
end
