# frozen_string_literal: true

module Mallard
  module Allocators
    # A setting that is code rather than environment: one line the app runs once it has booted, before it serves
    # (compare --config NAME=after_boot=warmup, --gc's gc-after-boot). An allocation-heavy boot leaves Ruby's heap far
    # larger than what the app keeps, and GC rarely runs often enough to give it back (ruby#18433):
    # - warmup: Process.warmup (Ruby 3.3 and later): a major GC that compacts, frees the pages left empty and trims
    #   malloc, made for the moment before a server forks;
    # - compact: a full GC and GC.compact, what a Ruby without Process.warmup can do towards the same.
    # Target::Rackup puts the line after the app's config.ru in the rackup mallard serves, so it runs in the process
    # that loads the app, wherever Puma loads it; the line carries nothing of mallard's.
    module AfterBoot
      # Written as a configuration's settings are (NAME=VALUE), lower-case: no environment variable of Ruby's.
      SETTING = "after_boot"
      CODE = { "warmup" => "Process.warmup",
               "compact" => "GC.start(full_mark: true, immediate_sweep: true); GC.compact" }.freeze
      # The method the Ruby must have for each, asked of it before any row runs (Probe::SettingsCheck).
      NEEDS = { "warmup" => "Process.warmup", "compact" => "GC.compact" }.freeze
      # Process.warmup came with Ruby 3.3.
      WARMUP_SINCE = Gem::Version.new("3.3")

      module_function

      # A configuration's settings as --config and --gc give them: the environment, and the action apart.
      # @param settings [Hash{String=>String}]
      # @return [Array(Hash{String=>String}, String)] the environment variables, and the action (nil: none)
      def split(settings)
        [settings.except(SETTING), settings[SETTING]]
      end

      # The line the app runs once it has booted.
      def code(action) = CODE.fetch(action)

      # What --gc may suggest for a comparison's rows: warmup where every one of their Rubies has it, else compact;
      # nil where the target has no boot mallard can put a line in.
      # @param target [#after_boot?]
      # @param rubies [Array<Target::SubjectRuby>] the rows' Rubies
      def available(target, rubies)
        return unless target.after_boot?

        rubies.all? { |ruby| Gem::Version.new(ruby.version) >= WARMUP_SINCE } ? "warmup" : "compact"
      end

      # A comparison whose rows ask for an action its target cannot run, refused before any row runs.
      # @param rows [Array(#label + #allocator)]
      # @raise [UsageError]
      def check_target(rows, target)
        asking = rows.select { |row| row.allocator.after_boot }
        return if asking.empty? || target.after_boot?

        said = asking.map { |row| "#{row.label}: #{SETTING}=#{row.allocator.after_boot}" }.join("; ")
        raise UsageError, "#{said} — mallard runs a line after boot only in a Rack app it serves with Puma (after " \
                          "the app's config.ru), and this #{target.kind} target boots the app itself; put the line " \
                          "in the app instead and compare that — nothing was run"
      end

      # A row's settings checks with its action borne out by the run's process: GC.stat(:compact_count) at the end of
      # its processes (Analysis::RubyFigures), which both actions raise. The check keeps the count (inside); none
      # counted is a problem, as a configuration that did not take effect is.
      # @param checks [Array<Summary::SettingCheck>] the row's (Probe::SettingsCheck)
      # @param inside [Hash{String=>Object}] the run's Ruby from inside (nil count: no agent in the run, or an older
      #   one)
      # @return [Array(Array<Summary::SettingCheck>, Array<String>)] the checks, and what did not run
      def confirm(checks, inside)
        compactions = inside["compact_count_at_end"]
        return [checks, []] if compactions.nil?

        not_run = []
        confirmed = checks.map do |check|
          next check unless check.name == SETTING

          not_run << "#{SETTING}=#{check.value} did not run in the app: no process had compacted its heap" \
            if compactions.zero?
          check.with(inside: { "compact_count" => compactions })
        end
        [confirmed, not_run]
      end
    end
  end
end
