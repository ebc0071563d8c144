# frozen_string_literal: true

require "test_helper"

# What a soak's GC sections say in words (SoakSentences), from what the analysis decided: why a Ruby ignores a
# RUBY_GC_* setting.
class GcSentencesTest < Minitest::Test
  def test_each_setting_a_ruby_ignores_says_why
    settings = { "RUBY_GC_HEAP_INIT_SLOTS" => "600000", "RUBY_GC_LIBRARY" => "mmtk",
                 "RUBY_GC_HEAP_GROWTH_FACTORR" => "1.1", "RUBY_GC_HEAP_GROWTH_FACTOR" => "1.1" }

    assert_equal ["RUBY_GC_HEAP_GROWTH_FACTOR=1.1",
                  "RUBY_GC_HEAP_GROWTH_FACTORR=1.1 — Ruby 3.4.1 does not read RUBY_GC_HEAP_GROWTH_FACTORR",
                  "RUBY_GC_HEAP_INIT_SLOTS=600000 — Ruby 3.4.1 ignores it: set the per-pool " \
                  "RUBY_GC_HEAP_0_INIT_SLOTS … RUBY_GC_HEAP_4_INIT_SLOTS instead",
                  "RUBY_GC_LIBRARY=mmtk — Ruby 3.4.1 reads it only when built with modular GC (--with-modular-gc); a " \
                  "standard build ignores it"], words(settings: judged("3.4.1", settings)).gc_settings
  end

  def test_a_setting_stored_with_its_sentence_shows_it
    stored = Mallard::Summary::GcSetting.from_h("name" => "RUBY_GC_HEAP_INIT_SLOTS", "value" => "1",
                                                "ignored" => "Ruby 3.3.0 ignores it, as an older mallard put it")

    assert_equal ["RUBY_GC_HEAP_INIT_SLOTS=1 — Ruby 3.3.0 ignores it, as an older mallard put it"],
                 words(settings: [stored]).gc_settings
  end

  private

  def judged(version, env)
    Mallard::Analysis::GcSettings.call(Mallard::Run::GcSettings.new(ruby_version: version, env: env))
  end

  # The presenter of a soak whose GC is these members.
  def words(**figures)
    Mallard::Report::SoakSentences.new(Mallard::Summary::Soak.new(gc: Mallard::Summary::Gc.new(**figures)))
  end
end
