# frozen_string_literal: true

module Mallard
  module Report
    # Copy-paste instructions for running an app under a recommended memory configuration: a Dockerfile for
    # Debian and for Alpine images, Heroku, systemd and Kubernetes, and how to check it took effect.
    #
    # Three kinds of configuration:
    # - preloaded library (jemalloc, tcmalloc, mimalloc): install the package, set LD_PRELOAD and any settings;
    # - environment only (glibc-arena2): just the settings, no package and no LD_PRELOAD;
    # - Ruby-side (glibc-trim): a require in the app, with keys gemfile, puma_config, rubyopt and verify instead.
    # A configuration with an action once the app has booted (Allocators::AfterBoot: Process.warmup, or a full GC and
    # compact) adds its lines for config/puma.rb, in single and cluster mode, and the config.ru line mallard ran.
    #
    # Every fact comes from the configuration's catalog entry (Allocators::Catalog): its settings, packages,
    # library and the file it requires — for a configuration of the user's own (compare --config, --jemalloc-conf,
    # --gc), the entry it was built on and the variables its row keeps. Any variable, RUBY_GC_* as much as MALLOC_*,
    # goes into the Dockerfile's ENV, Heroku's config:set, systemd's Environment= and Kubernetes' env: alike. The text
    # is plain and nothing in it is escaped, so only values of a conservative shape are accepted (a user's are refused
    # as --config reads them: Allocators::ConfigOption), and anything else is refused here.
    module DeploySnippets
      DEBIAN_LIBRARIES = "/usr/lib/x86_64-linux-gnu"
      ALPINE_LIBRARIES = "/usr/lib"
      # heroku-community/apt unpacks Aptfile packages under the app's home at /app/.apt.
      HEROKU_APT_ROOT = "/app/.apt"
      # Letters, digits and the punctuation of paths, package names and MALLOC_CONF: no space, quote or `$`.
      SAFE_VALUE = %r{\A[A-Za-z0-9_.:,/+=-]+\z}
      SAFE_VARIABLE = /\A[A-Z_][A-Z0-9_]*\z/
      TITLES = { dockerfile_debian: "Dockerfile (Debian/Ubuntu base)", dockerfile_alpine: "Dockerfile (Alpine)",
                 heroku: "Heroku", systemd: "systemd", kubernetes: "Kubernetes", gemfile: "Gemfile",
                 puma_config: "config/puma.rb", config_ru: "Or in config.ru", rubyopt: "Or without editing the app",
                 verify: "Check it in production" }.freeze

      module_function

      # How to deploy what a comparison recommends, title => text: its Ruby first when it runs another Ruby than
      # the baseline (RubyChangeSnippets), then its Puma shape with --shape (ShapeSnippets), then its allocator's;
      # none when it recommends nothing, or a configuration the catalog does not know (a summary from another mallard).
      # @param summary [Summary::Compare]
      # @return [Hash{String=>String}]
      def titled(summary, catalog: Allocators::Catalog.default)
        name = summary.recommendation&.name
        return {} unless name

        rows = Array(summary.rows)
        row = rows.find { |candidate| candidate.name == name }
        snippets = allocator_snippets(configuration(row, name, catalog))
        return snippets unless row

        baseline = rows.find { |candidate| candidate.name == summary.baseline }
        RubyChangeSnippets.titled(row, baseline).merge(ShapeSnippets.titled(row), snippets)
      end

      # The row's configuration: the catalog's entry of that name, or the one built on an entry (its base) with the
      # variables the row keeps and its action after boot (kept as the row's check of it); nil for neither.
      def configuration(row, name, catalog)
        allocator = row&.allocator || name
        entry = catalog.find { |candidate| candidate.name == allocator }
        return entry if entry || row&.base.nil?

        catalog.find { |candidate| candidate.name == row.base }&.configured(allocator, settings_of(row))
      end

      # The row's variables, and its action after boot (kept as the row's check of it).
      def settings_of(row)
        action = Array(row.settings_checks).find { |check| check.name == Allocators::AfterBoot::SETTING }
        (row.settings || {}).merge(action ? { action.name => action.value } : {})
      end

      # The allocator's part, title => text; none for a configuration that changes nothing or is not in the catalog.
      def allocator_snippets(entry)
        snippets = entry && DeploySnippets.for(entry)
        (snippets || {}).transform_keys { |key| TITLES.fetch(key, key.to_s) }
      end

      # @param allocator [Allocators::Allocator] a catalog entry, or one built on it
      # @return [Hash{Symbol=>String}, nil] nil when the configuration changes nothing (glibc itself)
      def for(allocator)
        snippets = environment_or_require(allocator)
        allocator.after_boot ? after_boot(allocator.after_boot, snippets || {}) : snippets
      end

      def environment_or_require(allocator)
        soname = allocator.sonames.first
        text(allocator.name, settings: allocator.settings, malloc: allocator.malloc,
                             debian_package: soname && allocator.packages[:debian],
                             alpine_package: soname && allocator.packages[:alpine],
                             library_debian: soname && "#{DEBIAN_LIBRARIES}/#{soname}",
                             library_alpine: soname && "#{ALPINE_LIBRARIES}/#{soname}",
                             ruby_require: allocator.ruby_requires.first)
      end

      # @param settings [Hash{String=>String}] environment variables besides LD_PRELOAD
      # @param malloc [String] the allocator `mallard doctor` reports (jemalloc-tuned is jemalloc)
      # @param ruby_require [String, nil] a feature to require in the app instead of any environment
      def text(name, settings:, debian_package:, alpine_package:, library_debian:, library_alpine:, malloc:,
               ruby_require: nil)
        check(name, settings, debian_package, alpine_package, library_debian, library_alpine, malloc, ruby_require)
        return ruby_side(ruby_require) if ruby_require
        return if settings.empty? && library_debian.nil?

        debian = environment(library_debian, settings)
        { dockerfile_debian: dockerfile(install_debian(debian_package), debian, library_debian),
          dockerfile_alpine: alpine(malloc, alpine_package, environment(library_alpine, settings), library_alpine),
          heroku: heroku(malloc, debian_package, library_debian, settings),
          systemd: systemd(debian_package, debian), kubernetes: kubernetes(debian_package, debian),
          verify: verify(malloc, library_debian, settings) }
      end

      # Alpine's C library is musl: glibc's tunables (MALLOC_*) mean nothing there, so say so instead of a snippet
      # that would silently do nothing; Ruby's own variables (RUBY_GC_*) are read on Alpine as anywhere.
      def alpine(malloc, package, variables, library)
        return dockerfile(package && "RUN apk add --no-cache #{package}", variables, library) unless malloc == "glibc"

        glibc, ruby = variables.partition { |variable, _| variable.start_with?("MALLOC_") }
        note = unless glibc.empty?
                 "# Alpine images use musl, not glibc: #{glibc.map(&:first).join(', ')} has no effect there.\n" \
                   "# Use a Debian/Ubuntu base (above), or compare jemalloc, which preloads on both."
               end
        [note, dockerfile(nil, ruby, nil)].reject { |part| part.nil? || part.empty? }.join("\n")
      end

      def environment(library, settings)
        (library ? [["LD_PRELOAD", library]] : []) + settings.to_a
      end

      def install_debian(package)
        return unless package

        ["RUN apt-get update", "apt-get install -y --no-install-recommends #{package}", "rm -rf /var/lib/apt/lists/*"]
          .join(" \\\n && ")
      end

      def dockerfile(install, variables, library)
        lines = [install]
        lines << "# on arm64 images the library is under #{library.sub('x86_64', 'aarch64')}" \
          if library&.include?("x86_64-linux-gnu")
        lines.concat(variables.map { |variable, value| "ENV #{variable}=#{value}" })
        lines.compact.join("\n")
      end

      # Heroku's stack has none of these libraries, so the package comes from a buildpack first.
      def heroku(malloc, package, library, settings)
        return "heroku config:set #{assignments(settings.to_a)}" unless library

        ["# Heroku's stack does not include #{package}: add a buildpack that provides it first, either one made",
         "# for #{malloc} (set LD_PRELOAD to the path it documents) or heroku-community/apt with an Aptfile:",
         "heroku buildpacks:add --index 1 heroku-community/apt",
         "echo #{package} >> Aptfile   # commit it, then deploy",
         "heroku config:set #{assignments(environment("#{HEROKU_APT_ROOT}#{library}", settings))}"].join("\n")
      end

      def assignments(variables)
        variables.map { |variable, value| "#{variable}=#{value}" }.join(" ")
      end

      def systemd(package, variables)
        lines = ["[Service]"]
        lines << "# needs the #{package} package installed (apt-get install #{package})" if package
        lines.concat(variables.map { |variable, value| "Environment=#{variable}=#{value}" })
        lines << "# then: systemctl daemon-reload && systemctl restart <your unit>"
        lines.join("\n")
      end

      # Values are quoted: Kubernetes refuses a bare 2 where an env value must be a string.
      def kubernetes(package, variables)
        lines = ["# in the container spec; the image must include #{package} (see the Dockerfile)"] if package
        lines = [*lines, "env:"]
        variables.each { |variable, value| lines.push("  - name: #{variable}", "    value: \"#{value}\"") }
        lines.join("\n")
      end

      def verify(malloc, library, settings)
        # doctor prints the file mapped, which may be what the soname links to (libmimalloc.so.2.0).
        allocator = if library
                      "#{malloc} — preloaded via LD_PRELOAD (…/#{File.basename(library)} or the file it links to)"
                    else
                      "glibc — the C library's default"
                    end
        shown = settings.map { |variable, value| "#{variable}=#{value}" }
        environment = shown.empty? ? "" : ", and list #{shown.join(' and ')} under Environment"
        "Run `mallard doctor PID` on a running app process: it should say Allocator #{allocator}#{environment}."
      end

      def ruby_side(feature)
        { gemfile: "gem \"mallard\"",
          puma_config: "# at the very top of config/puma.rb\nrequire \"#{feature}\"",
          rubyopt: "# or, without touching config/puma.rb, in the app's environment\nRUBYOPT=-r#{feature}",
          verify: "Run `mallard doctor PID` on a running app process: it should say Allocator glibc — the C " \
                  "library's default, and list RUBYOPT=-r#{feature} under Environment if you used RUBYOPT; with " \
                  "config/puma.rb, `$LOADED_FEATURES.grep(%r{#{feature}})` in the app's console is not empty." }
      end

      # The action's lines for config/puma.rb, where the app's code runs once it has booted: in cluster mode the master
      # before it forks the workers, the app preloaded so each starts from the heap it left; in single mode once it has
      # booted, where Puma has that hook (6 and later). config.ru's line is what mallard ran, the same in either mode on
      # any Puma: after the app is loaded, before it serves. Beside a require of mallard's (glibc-trim), after it.
      def after_boot(action, snippets)
        code = Allocators::AfterBoot.code(action)
        puma = ["# once the app has booted. Cluster mode (workers): in the master, before it forks them, with the",
                "# app preloaded, so every worker starts from the heap it leaves", "preload_app!",
                "before_fork { #{code} }",
                "# Single mode (no workers): `after_booted { #{code} }` on Puma 7, `on_booted { … }` on Puma 6;",
                "# Puma 5 has no such hook: use the config.ru line"].join("\n")
        verify = "In a server process, GC.stat(:compact_count) is 1 or more once the app has booted (#{code} " \
                 "compacts the heap)."
        snippets.merge(puma_config: [snippets[:puma_config], puma].compact.join("\n\n"),
                       config_ru: "# after the app is loaded (require_relative \"config/environment\"), before " \
                                  "`run`\n#{code}",
                       verify: [snippets[:verify], verify].compact.join("\n"))
      end

      def check(name, settings, *values)
        refused = [name, *settings.values, *values].compact.grep_v(SAFE_VALUE) +
                  settings.keys.grep_v(SAFE_VARIABLE)
        raise ArgumentError, "not a known configuration value: #{refused.first.inspect}" unless refused.empty?
      end

      private_class_method :configuration, :settings_of, :allocator_snippets, :environment_or_require, :after_boot,
                           :text, :environment, :install_debian, :dockerfile, :heroku, :assignments, :systemd,
                           :kubernetes, :verify, :ruby_side, :check
    end
  end
end
