# frozen_string_literal: true

module Mallard
  # What a value of --yjit means: "off", "on" (YJIT with its Ruby's own code region: 48 MiB on 3.3, 256 on 3.1), or a
  # code region size in MiB ("16": YJIT on with --yjit-exec-mem-size=16, an option every Ruby with YJIT reads, 3.1 to
  # 3.4). The options, the rows of a comparison, their check in the process and their deploy snippets read a mode
  # through here, so a size means the same everywhere.
  module YjitMode
    SWITCHES = %w[on off].freeze
    SIZE_OPTION = "--yjit-exec-mem-size"
    # Ruby 3.3 takes sizes up to 4096 MiB, but 4096 wraps to 0 in its 32-bit mmap size and it dies at boot ("[BUG]
    # mmap failed"); the Ruby itself is asked too (Experiments::SoakOptions.yjit_refusal).
    MAX_MIB = 4095
    SIZE = /\A[1-9]\d*\z/

    module_function

    # @param mode [String, nil]
    def valid?(mode) = SWITCHES.include?(mode) || size_mib(mode)&.<=(MAX_MIB) || false

    # @return [Integer, nil] the code region size a mode asks for; nil for on, off or nil
    def size_mib(mode) = mode.to_s.match?(SIZE) ? mode.to_i : nil

    # Whether YJIT runs in this mode: on, or a size.
    def on?(mode) = !mode.nil? && mode != "off"

    # @return [String, nil] the option a size adds to RUBYOPT ("--yjit-exec-mem-size=16"); nil for on or off
    def option(mode)
      size = size_mib(mode)
      "#{SIZE_OPTION}=#{size}" if size
    end

    # The environment of a process in this mode: RUBY_YJIT_ENABLE=1 for on or a size (unset for off), and a size's
    # option added to the RUBYOPT it already has — mallard's agent and a configuration's files load through RUBYOPT
    # too, so the option joins them rather than replacing them.
    # @param rubyopt [String, nil] the RUBYOPT the process gets without this mode
    # @return [Hash{String=>String, nil}]
    def env(mode, rubyopt)
      options = [rubyopt, option(mode)].compact
      { "RUBY_YJIT_ENABLE" => on?(mode) ? "1" : nil, "RUBYOPT" => options.empty? ? nil : options.join(" ") }
    end

    # A row's name part: "yjit-on", "yjit-off", "yjit-16".
    def label(mode) = "yjit-#{mode}"
  end
end
