# frozen_string_literal: true

require "test_helper"

# The limits a soak's options are held to before anything starts.
class SoakOptionsTest < Minitest::Test
  def test_the_defaults_are_valid_and_allow_1_percent_of_failed_requests
    options = Mallard::Experiments::SoakOptions.defaults

    assert_same options, options.validate!
    assert_in_delta 1.0, options.max_error_pct
  end

  def test_the_limits_are_inclusive
    options(duration: 86_400, interval: 0.05, concurrency: 10_000, requests: 10_000_000_000, boot_timeout: 3600,
            max_error_pct: 0, neighbours: 32).validate!(open_files: 20_000)
    options(duration: 0.6, interval: 0.05, max_error_pct: 100).validate!
  end

  # [overrides, the option named in the refusal]
  BAD = [
    [{ duration: Float::INFINITY }, "--duration"], [{ duration: -1.0 }, "--duration"],
    [{ duration: 86_401 }, "--duration"], [{ duration: 0.5, interval: 0.05 }, "--duration"],
    [{ interval: Float::INFINITY }, "--interval"], [{ interval: 0.04 }, "--interval"],
    [{ memory_limit: "0" }, "--memory-limit"], [{ memory_limit: "2T" }, "--memory-limit"],
    [{ duration: 10, interval: 1 }, "--interval 1 leaves fewer than 12 samples"],
    [{ concurrency: 0 }, "--concurrency"], [{ concurrency: 10_001 }, "--concurrency"],
    [{ requests: 0 }, "--requests"], [{ requests: 10_000_000_001 }, "--requests"],
    [{ boot_timeout: 0.0 }, "--boot-timeout"], [{ boot_timeout: Float::INFINITY }, "--boot-timeout"],
    [{ max_error_pct: -0.1 }, "--max-errors"], [{ max_error_pct: 100.1 }, "--max-errors"],
    [{ paths: [] }, "no request paths"], [{ paths: ["/a b"] }, "request path"],
    [{ paths: ["/\u00e9"] }, "request path"], [{ paths: ["/\xFF".b] }, "request path"],
    [{ paths: ["x"] }, "request path"], [{ yjit: "0" }, "--yjit takes"], [{ yjit: "4096" }, "--yjit takes"],
    [{ yjit: "16m" }, "--yjit takes"], [{ neighbours: -1 }, "--neighbours"], [{ neighbours: 33 }, "--neighbours"],
    [{ neighbours: 1, concurrency: "auto" }, "--neighbours"]
  ].freeze

  def test_each_bad_value_is_refused_by_name
    BAD.each do |overrides, named|
      error = assert_raises(Mallard::UsageError, overrides.inspect) { options(**overrides).validate! }

      assert_includes error.message, named, overrides.inspect
      refute_includes error.message, "\n"
    end
  end

  def test_concurrency_must_fit_the_open_file_limit
    error = assert_raises(Mallard::UsageError) { options(concurrency: 1000).validate!(open_files: 1024) }

    assert_includes error.message, "needs more open files than the limit allows (1024"
    options(concurrency: 900).validate!(open_files: 1024)
  end

  # A script runs without load: its load settings are never used, so never checked.
  def test_a_script_checks_only_its_sampling
    options(duration: Float::INFINITY, concurrency: 0, paths: []).validate!(load: false)

    assert_raises(Mallard::UsageError) { options(interval: 0.0).validate!(load: false) }
  end

  def test_the_default_interval_keeps_12_samples_in_a_short_run
    assert_in_delta 0.5, Mallard::Experiments::SoakOptions.default_interval(20)
    assert_in_delta 0.25, Mallard::Experiments::SoakOptions.default_interval(3)
  end

  # A size is YJIT on with --yjit-exec-mem-size, which joins the RUBYOPT the agent loads through; mallard's own Ruby,
  # if it has YJIT, is asked whether it takes the size.
  def test_a_yjit_size_joins_rubyopt
    options = options(yjit: "16")

    assert_equal({ "RUBY_YJIT_ENABLE" => "1", "RUBYOPT" => "-rx --yjit-exec-mem-size=16" }, options.yjit_env("-rx"))
    assert_equal({}, options(yjit: nil).yjit_env("-rx"))
    skip "mallard's Ruby has no YJIT" unless defined?(RubyVM::YJIT)

    assert_same options, options.validate!
  end

  private

  def options(**overrides)
    Mallard::Experiments::SoakOptions.defaults.tap do |options|
      overrides.each { |key, value| options[key] = value }
    end
  end
end
