# frozen_string_literal: true

require "test_helper"

class DeploySnippetsTest < Minitest::Test
  DeploySnippets = Mallard::Report::DeploySnippets
  Allocator = Mallard::Allocators::Allocator

  PRELOADED_KEYS = %i[dockerfile_debian dockerfile_alpine heroku systemd kubernetes verify].freeze

  # Snippets for a catalog entry: every fact they print comes from the catalog.
  def known(name)
    DeploySnippets.for(Mallard::Allocators::Catalog.default.fetch(name))
  end

  def entry(**attributes)
    Allocator.new(name: "jemalloc", summary: "", malloc: "jemalloc", finder: nil, sonames: %w[libjemalloc.so.2],
                  packages: { debian: "libjemalloc2", alpine: "jemalloc" }, **attributes)
  end

  def test_a_preloaded_library_is_installed_and_preloaded_everywhere
    snippets = known("jemalloc-tuned")

    assert_equal PRELOADED_KEYS, snippets.keys
    assert_includes snippets[:dockerfile_debian], "apt-get install -y --no-install-recommends libjemalloc2"
    assert_includes snippets[:dockerfile_debian], "ENV LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2\n"
    assert_includes snippets[:dockerfile_debian], "ENV MALLOC_CONF=narenas:2,dirty_decay_ms:1000"
    assert_includes snippets[:dockerfile_alpine], "RUN apk add --no-cache jemalloc\n"
    assert_includes snippets[:dockerfile_alpine], "ENV LD_PRELOAD=/usr/lib/libjemalloc.so.2\n"
    assert_includes snippets[:dockerfile_alpine], "ENV MALLOC_CONF=narenas:2,dirty_decay_ms:1000"
  end

  def test_platform_snippets_set_the_same_variables
    snippets = known("jemalloc-tuned")

    assert_match(/buildpack/, snippets[:heroku])
    assert_includes snippets[:heroku], "heroku config:set LD_PRELOAD=/app/.apt/usr/lib/x86_64-linux-gnu/" \
                                       "libjemalloc.so.2 MALLOC_CONF=narenas:2,dirty_decay_ms:1000"
    assert_includes snippets[:systemd], "[Service]\n"
    assert_includes snippets[:systemd], "Environment=LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2\n"
    assert_includes snippets[:systemd], "Environment=MALLOC_CONF=narenas:2,dirty_decay_ms:1000\n"
    assert_includes snippets[:kubernetes], "env:\n  - name: LD_PRELOAD\n    value: " \
                                           "\"/usr/lib/x86_64-linux-gnu/libjemalloc.so.2\"\n"
    assert_includes snippets[:kubernetes], "  - name: MALLOC_CONF\n    value: \"narenas:2,dirty_decay_ms:1000\""
  end

  def test_verify_names_the_allocator_doctor_should_find
    assert_includes known("jemalloc-tuned")[:verify], "mallard doctor PID"
    assert_includes known("jemalloc-tuned")[:verify],
                    "Allocator jemalloc — preloaded via LD_PRELOAD (…/libjemalloc.so.2"
    assert_includes known("jemalloc-tuned")[:verify], "MALLOC_CONF=narenas:2,dirty_decay_ms:1000"
    assert_includes known("mimalloc")[:verify], "Allocator mimalloc — preloaded"
  end

  def test_tcmalloc_and_mimalloc_packages_and_paths
    tcmalloc = known("tcmalloc")
    mimalloc = known("mimalloc")

    assert_includes tcmalloc[:dockerfile_debian], "libtcmalloc-minimal4"
    assert_includes tcmalloc[:dockerfile_debian], "ENV LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4"
    assert_includes tcmalloc[:dockerfile_alpine], "apk add --no-cache gperftools"
    assert_includes tcmalloc[:dockerfile_alpine], "ENV LD_PRELOAD=/usr/lib/libtcmalloc_minimal.so.4"
    assert_includes mimalloc[:dockerfile_debian], "libmimalloc2.0"
    assert_includes mimalloc[:dockerfile_debian], "ENV LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libmimalloc.so.2"
    assert_includes mimalloc[:dockerfile_alpine], "apk add --no-cache mimalloc2"
    assert_includes mimalloc[:dockerfile_alpine], "ENV LD_PRELOAD=/usr/lib/libmimalloc.so.2"
    refute_match(/MALLOC_CONF/, mimalloc.values.join)
  end

  def test_an_environment_only_configuration_installs_and_preloads_nothing
    snippets = known("glibc-arena2")

    assert_equal PRELOADED_KEYS, snippets.keys
    assert_equal "ENV MALLOC_ARENA_MAX=2", snippets[:dockerfile_debian]
    assert_match(/Alpine images use musl, not glibc: MALLOC_ARENA_MAX has no effect there/,
                 snippets[:dockerfile_alpine])
    assert_equal "heroku config:set MALLOC_ARENA_MAX=2", snippets[:heroku]
    assert_includes snippets[:systemd], "Environment=MALLOC_ARENA_MAX=2"
    assert_equal "env:\n  - name: MALLOC_ARENA_MAX\n    value: \"2\"", snippets[:kubernetes]
    assert_includes snippets[:verify], "Allocator glibc — the C library's default"
    refute_match(/LD_PRELOAD|apt-get|apk|buildpack/, snippets.values.join)
  end

  def test_glibc_trim_is_a_require_in_the_app
    snippets = known("glibc-trim")

    assert_equal %i[gemfile puma_config rubyopt verify], snippets.keys
    assert_equal "gem \"mallard\"", snippets[:gemfile]
    assert_includes snippets[:puma_config], "config/puma.rb\nrequire \"mallard/trim\""
    assert_includes snippets[:rubyopt], "RUBYOPT=-rmallard/trim"
    refute_match(/LD_PRELOAD|MALLOC_/, snippets.values.join)
  end

  def test_nothing_to_deploy_for_the_baseline
    assert_nil known("glibc")
  end

  def test_values_that_would_need_escaping_are_refused
    assert_raises(ArgumentError) { DeploySnippets.for(entry(settings: { "MALLOC_CONF" => "a b" })) }
    assert_raises(ArgumentError) { DeploySnippets.for(entry(settings: { "x;y" => "1" })) }
    assert_raises(ArgumentError) { DeploySnippets.for(entry(sonames: ["$(id).so"])) }
    assert_raises(ArgumentError) { DeploySnippets.for(entry(name: "je\"malloc")) }
  end

  def test_the_catalog_is_the_one_source_of_the_facts
    snippets = DeploySnippets.for(entry(settings: { "MALLOC_CONF" => "narenas:4" }))

    assert_includes snippets[:systemd], "Environment=MALLOC_CONF=narenas:4"
    assert_includes snippets[:dockerfile_debian], "libjemalloc2"
  end

  # A comparison's row names its catalog entry: a second row of one configuration (A/A) is labelled apart.
  def test_a_recommendation_is_titled_from_the_catalog_entry_of_its_row
    row = { "name" => "glibc-arena2#2", "allocator" => "glibc-arena2" }
    summary = Mallard::Summary::Compare.from_h("recommendation" => { "name" => "glibc-arena2#2" }, "rows" => [row])
    titled = DeploySnippets.titled(summary)

    assert_equal ["Dockerfile (Debian/Ubuntu base)", "Dockerfile (Alpine)", "Heroku", "systemd", "Kubernetes",
                  "Check it in production"], titled.keys
    assert_includes titled["systemd"], "Environment=MALLOC_ARENA_MAX=2"
  end

  # compare --config, --jemalloc-conf, --gc: a configuration of the user's own is in no catalog; its row keeps the
  # entry it was built on and its variables, and every kind of deployment sets them.
  def test_a_configuration_of_ones_own_is_deployed_from_its_row
    titled = own_titled("gc-cap", "glibc", "RUBY_GC_HEAP_GROWTH_FACTOR" => "1.1", "RUBY_GC_HEAP_FREE_SLOTS" => "4000")

    assert_equal "ENV RUBY_GC_HEAP_GROWTH_FACTOR=1.1\nENV RUBY_GC_HEAP_FREE_SLOTS=4000",
                 titled["Dockerfile (Debian/Ubuntu base)"]
    assert_equal titled["Dockerfile (Debian/Ubuntu base)"], titled["Dockerfile (Alpine)"], "Ruby reads them on musl too"
    assert_equal "heroku config:set RUBY_GC_HEAP_GROWTH_FACTOR=1.1 RUBY_GC_HEAP_FREE_SLOTS=4000", titled["Heroku"]
    assert_includes titled["systemd"], "[Service]\nEnvironment=RUBY_GC_HEAP_GROWTH_FACTOR=1.1\n" \
                                       "Environment=RUBY_GC_HEAP_FREE_SLOTS=4000\n"
    assert_equal "env:\n  - name: RUBY_GC_HEAP_GROWTH_FACTOR\n    value: \"1.1\"\n  " \
                 "- name: RUBY_GC_HEAP_FREE_SLOTS\n    value: \"4000\"", titled["Kubernetes"]
    assert_includes titled["Check it in production"], "RUBY_GC_HEAP_GROWTH_FACTOR=1.1 and RUBY_GC_HEAP_FREE_SLOTS=4000"
  end

  def test_a_jemalloc_conf_row_installs_preloads_and_sets_its_malloc_conf
    conf = "dirty_decay_ms:1000,narenas:2,background_thread:true"
    titled = own_titled("jemalloc/combined", "jemalloc", "MALLOC_CONF" => conf)

    assert_includes titled["Dockerfile (Debian/Ubuntu base)"], "libjemalloc2"
    assert_includes titled["Dockerfile (Debian/Ubuntu base)"], "ENV LD_PRELOAD=/usr/lib/x86_64-linux-gnu/" \
                                                               "libjemalloc.so.2\nENV MALLOC_CONF=#{conf}"
    assert_includes titled["Dockerfile (Alpine)"], "ENV MALLOC_CONF=#{conf}"
    assert_includes titled["Heroku"], "MALLOC_CONF=#{conf}"
    assert_includes titled["systemd"], "Environment=MALLOC_CONF=#{conf}\n"
    assert_includes titled["Kubernetes"], "  - name: MALLOC_CONF\n    value: \"#{conf}\""
    assert_equal DeploySnippets.titled(catalog_summary("jemalloc")).values,
                 own_titled("jemalloc/rails-dockerfile", "jemalloc", {}).values, "Rails' line: plain jemalloc"
  end

  # musl ignores glibc's tunables, not Ruby's variables.
  def test_alpine_keeps_rubys_variables_beside_glibcs_note
    titled = own_titled("mixed", "glibc-arena2", "MALLOC_ARENA_MAX" => "2", "RUBY_GC_HEAP_GROWTH_FACTOR" => "1.1")

    assert_match(/musl, not glibc: MALLOC_ARENA_MAX has no effect there/, titled["Dockerfile (Alpine)"])
    assert titled["Dockerfile (Alpine)"].end_with?("\nENV RUBY_GC_HEAP_GROWTH_FACTOR=1.1")
  end

  # An action after boot is a line in the app: config/puma.rb's for cluster and single mode, and the config.ru line
  # mallard ran; from the row's check of it, as the summary keeps it. No environment unless the row sets some too.
  def test_an_action_after_boot_is_its_lines_for_config_puma_rb_and_config_ru
    titled = own_titled("warm", "glibc", {}, "warmup")

    assert_equal ["config/puma.rb", "Or in config.ru", "Check it in production"], titled.keys
    assert_includes titled["config/puma.rb"], "preload_app!\nbefore_fork { Process.warmup }\n"
    assert_includes titled["config/puma.rb"], "`after_booted { Process.warmup }` on Puma 7, `on_booted { … }` on Puma 6"
    assert titled["Or in config.ru"].end_with?("before `run`\nProcess.warmup")
    assert_includes titled["Check it in production"], "GC.stat(:compact_count) is 1 or more"
  end

  def test_an_action_beside_variables_keeps_both
    titled = own_titled("old", "glibc", { "RUBY_GC_HEAP_GROWTH_FACTOR" => "1.1" }, "compact")

    assert_equal "ENV RUBY_GC_HEAP_GROWTH_FACTOR=1.1", titled["Dockerfile (Debian/Ubuntu base)"]
    assert_includes titled["config/puma.rb"],
                    "before_fork { GC.start(full_mark: true, immediate_sweep: true); GC.compact }"
    assert_match(/RUBY_GC_HEAP_GROWTH_FACTOR=1.1 under Environment.*\nIn a server process/m,
                 titled["Check it in production"])
  end

  def test_nothing_to_title_without_a_known_recommendation
    [nil, { "name" => nil }, { "name" => "not-in-the-catalog" }, { "name" => "glibc" }].each do |recommendation|
      assert_empty DeploySnippets.titled(Mallard::Summary::Compare.from_h("recommendation" => recommendation))
    end
  end

  # Issue 25: a recommendation on another Ruby says which Ruby, how to get it linked as it was, and how to check.
  def test_a_recommended_ruby_change_gives_the_version_the_build_and_the_check
    summary = ruby_summary("3.3.8-jemalloc/glibc", { "version" => "3.3.8", "allocator_linked" => "jemalloc" })
    snippets = DeploySnippets.titled(summary)

    assert_equal ["Ruby version (.ruby-version and Gemfile)", "Dockerfile (the Ruby)", "Building that Ruby",
                  "Check the Ruby in production"], snippets.keys
    assert_includes snippets["Ruby version (.ruby-version and Gemfile)"], "\n3.3.8\n\n# Gemfile\nruby \"3.3.8\""
    assert_includes snippets["Building that Ruby"], "RUBY_CONFIGURE_OPTS=--with-jemalloc rbenv install 3.3.8"
    assert_includes snippets["Check the Ruby in production"], "-ljemalloc among the libraries"
  end

  def test_a_stock_ruby_change_names_its_image_and_yjit_its_variable
    summary = ruby_summary("3.3.8/glibc/yjit-on", { "version" => "3.3.8", "allocator_linked" => nil }, yjit: "on")
    snippets = DeploySnippets.titled(summary)

    assert_equal "FROM ruby:3.3.8-slim", snippets["Dockerfile (the Ruby)"]
    refute snippets.key?("Building that Ruby")
    assert_includes snippets["YJIT"], "RUBY_YJIT_ENABLE=1"
  end

  # compare --yjit 16: YJIT on, and its code region's size as RUBYOPT's option.
  def test_a_yjit_size_gives_the_variable_and_the_option
    rows = %w[off 16].map do |mode|
      Mallard::Summary::Row.new(name: "glibc/yjit-#{mode}", allocator: "glibc", yjit: mode)
    end
    summary = Mallard::Summary::Compare.new(baseline: "glibc/yjit-off", rows: rows,
                                            recommendation: Mallard::Summary::Recommendation.new(name: "glibc/yjit-16"))
    snippets = DeploySnippets.titled(summary).reject { |title, _| title.start_with?("Check") }

    assert_equal ["YJIT"], snippets.keys
    assert_match(/^RUBY_YJIT_ENABLE=1\nRUBYOPT=--yjit-exec-mem-size=16\n/, snippets["YJIT"])
  end

  # compare --shape: the shape chosen as config/puma.rb's lines and Rails' variables, even when it is the baseline's
  # (mallard knows the shapes it measured, not the one the app runs in production).
  def test_a_puma_shape_gives_its_config_lines_and_variables
    snippets = shape_snippets(%w[glibc/1x5 glibc/2x5 glibc/2x5-nopreload], "glibc/2x5")
    config = snippets["Puma shape (config/puma.rb)"]

    assert_includes config, "a master and 2 workers of 5 threads, preloaded by the master"
    assert_match(/^threads 5, 5\nworkers 2\npreload_app!\z/, config)
    assert_match(/\AWEB_CONCURRENCY=2\nRAILS_MAX_THREADS=5\n/,
                 snippets["Or by environment (Rails' generated config/puma.rb reads these)"])
    assert_match(/^workers 1\n/, shape_snippets(%w[glibc/1x5], "glibc/1x5")["Puma shape (config/puma.rb)"])
  end

  def test_a_shape_without_preload_or_in_single_mode_says_so
    nopreload = shape_snippets(%w[glibc/1x5 glibc/2x5-nopreload], "glibc/2x5-nopreload")["Puma shape (config/puma.rb)"]
    single = shape_snippets(%w[glibc/1x5 glibc/0x8], "glibc/0x8")["Puma shape (config/puma.rb)"]

    assert_match(/^# no preload_app! .*preload_app! false$/, nopreload)
    refute_match(/^preload_app!/, nopreload)
    assert_match(/one process, 8 threads \(Puma's single mode\)\nthreads 8, 8\n# single mode: no workers line/, single)
  end

  def test_a_ruby_version_of_another_shape_is_refused
    summary = ruby_summary("odd", { "version" => "3.3.8; rm -rf /" })

    assert_raises(ArgumentError) { DeploySnippets.titled(summary) }
  end

  private

  def own_titled(name, base, settings, after_boot = nil)
    checks = [Mallard::Summary::SettingCheck.new(name: "after_boot", value: after_boot, status: "read")] if after_boot
    row = Mallard::Summary::Row.new(name: name, allocator: name, base: base, settings: settings,
                                    settings_checks: checks || [])
    recommendation = Mallard::Summary::Recommendation.new(name: name)
    DeploySnippets.titled(Mallard::Summary::Compare.new(baseline: "glibc", rows: [row], recommendation: recommendation))
  end

  def shape_snippets(names, chosen)
    rows = names.map do |name|
      Mallard::Summary::Row.new(name: name, allocator: "glibc", shape: name.split("/").last)
    end
    summary = Mallard::Summary::Compare.new(baseline: names.first, rows: rows,
                                            recommendation: Mallard::Summary::Recommendation.new(name: chosen))
    DeploySnippets.titled(summary)
  end

  def catalog_summary(name)
    Mallard::Summary::Compare.from_h("recommendation" => { "name" => name },
                                     "rows" => [{ "name" => name, "allocator" => name }])
  end

  def ruby_summary(name, ruby, yjit: nil)
    rows = [Mallard::Summary::Row.new(name: "3.1.2/glibc", allocator: "glibc", ruby: { "path" => "/usr/bin/ruby" }),
            Mallard::Summary::Row.new(name: name, allocator: "glibc", ruby: ruby.merge("path" => "/opt/#{name}/ruby"),
                                      yjit: yjit)]
    Mallard::Summary::Compare.new(baseline: "3.1.2/glibc", rows: rows,
                                  recommendation: Mallard::Summary::Recommendation.new(name: name))
  end
end
