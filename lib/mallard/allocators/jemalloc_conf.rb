# frozen_string_literal: true

module Mallard
  module Allocators
    # compare --jemalloc-conf: a few MALLOC_CONF settings on preloaded jemalloc, each a configuration of its own built
    # as --config's are (Allocator#configured, so the rows' MALLOC_CONF is checked before any runs), and how the
    # options jemalloc took in the process (read there by the agent: Agent::MallocStats.options) bear a MALLOC_CONF out.
    module JemallocConf
      BASE = "jemalloc"
      # The matrix, small on purpose (each row is --repeat more runs): each knob people set alone, the line they copy
      # with all three, and Rails' own Dockerfile. jemalloc 5's defaults, against which each is read: dirty pages
      # purged over 10 s, 4 arenas per CPU, purging done by the threads that allocate.
      ROWS = {
        # Freed pages handed back after 1 s instead of 10 s: RSS follows the app's live memory down sooner.
        "decay-1s" => "dirty_decay_ms:1000",
        # Two arenas, as glibc-arena2 has: a Puma process's few threads share them, and less is held free in each.
        "narenas-2" => "narenas:2",
        # Purging on jemalloc's own thread: the decay happens while the app is idle too, not on its next malloc.
        "bg-thread" => "background_thread:true",
        # The three together: the line Rails apps copy, with no measured rationale (heroku-buildpack-jemalloc#33).
        # It is the one fly-apps/dockerfile-rails writes for --jemalloc (lib/generators/dockerfile_generator.rb, as
        # cited in pghero/pghero#4), often taken for Rails' own.
        "combined" => "dirty_decay_ms:1000,narenas:2,background_thread:true",
        # Rails' generated Dockerfile (railties/lib/rails/generators/rails/app/templates/Dockerfile.tt) installs
        # libjemalloc2 and sets LD_PRELOAD="/usr/local/lib/libjemalloc.so" with no MALLOC_CONF: jemalloc as it
        # comes, the same as the catalog's jemalloc, so the matrix has its plain reference among its own rows.
        "rails-dockerfile" => nil
      }.freeze
      PLAIN = "jemalloc, preloaded with no MALLOC_CONF, as Rails' generated Dockerfile ships it"

      # What --jemalloc-conf's LIST may name: ROWS' names, comma-separated.
      LIST = /\A(?:#{ROWS.keys.join('|')})(?:,(?:#{ROWS.keys.join('|')}))*\z/

      module_function

      # @param names [Array<String>, nil] which of ROWS, in this order (nil: all)
      # @return [Array<Allocator>] named jemalloc/NAME
      def configs(catalog, names = nil)
        base = catalog.fetch(BASE)
        (names || ROWS.keys).uniq.map do |name|
          conf = ROWS.fetch(name)
          settings = conf ? { "MALLOC_CONF" => conf } : {}
          base.configured("#{BASE}/#{name}", settings, summary: conf ? nil : PLAIN)
        end
      end

      # A row's settings checks with its MALLOC_CONF's borne out by the options jemalloc took in a run's process: the
      # check keeps those options (inside), and any pair jemalloc did not take is a problem, as a configuration that
      # did not take effect is.
      # @param checks [Array<Summary::SettingCheck>] the row's (Probe::SettingsCheck)
      # @param options [Hash{String=>Object}, nil] the run's reading (nil: none, say without the agent)
      # @return [Array(Array<Summary::SettingCheck>, Array<String>)] the checks, and the pairs not taken
      def confirm(checks, options)
        return [checks, []] unless options

        not_taken = []
        confirmed = checks.map do |check|
          next check unless check.name == Probe::SettingsCheck::MALLOC_CONF

          not_taken.concat(problems(check.value, options))
          check.with(inside: options.slice(*pairs(check.value).keys.map { |key| "opt.#{key}" }))
        end
        [confirmed, not_taken]
      end

      # A MALLOC_CONF's pairs against the options jemalloc took in the process: each pair it sets is
      # jemalloc's opt.KEY. A key the process's reading does not carry cannot be told either way.
      # @param conf [String] the row's MALLOC_CONF
      # @param options [Hash{String=>Object}] "opt.narenas" => 2, … (Agent::MallocStats.options)
      # @return [Array<String>] each pair jemalloc did not take, with what it runs instead; empty when all held
      def problems(conf, options)
        pairs(conf).filter_map do |key, value|
          name = "opt.#{key}"
          next unless options.key?(name) && options[name].to_s != value

          "MALLOC_CONF sets #{key}:#{value} but jemalloc runs with #{name} #{options[name]}"
        end
      end

      # The options a MALLOC_CONF sets, as jemalloc reads them (later pairs win).
      def pairs(conf)
        conf.to_s.split(",").filter_map { |pair| pair.split(":", 2) if pair.include?(":") }.to_h
      end
    end
  end
end
