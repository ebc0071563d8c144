# frozen_string_literal: true

require "test_helper"
require "json"
require "cgi"
require_relative "stored_summaries"

# A job worker's figures per job class worded once (Report::JobClassSentences): the class memory grows with named,
# a line per class with its judgement and why a figure is too thin; placed by the terminal, tabled by the HTML page,
# carried as data by the JSON.
class JobClassSentencesTest < Minitest::Test
  include StoredSummaries

  CLASSES = [
    { job_class: "LeakyJob", jobs: 2280, per_s: 137.2, time_ms_p50: 0.4, time_ms_p99: 2.5, failed: 0,
      growth_kb_per_1k_jobs: 9124.6, growth_kb_per_1k_jobs_ci: [5767.7, 12_481.4], judgement: "growing" },
    { job_class: "ChurnJob", jobs: 2470, per_s: 148.6, time_ms_p50: 0.3, time_ms_p99: 0.7, failed: 3,
      growth_kb_per_1k_jobs: 336.2, growth_kb_per_1k_jobs_ci: [-4493.9, 5166.2], judgement: "too_thin", why: "wide" },
    { job_class: "RareJob", jobs: 12, per_s: 0.7, failed: 0, judgement: "too_thin", why: "few_jobs" }
  ].map { |part| Mallard::Summary::JobClass.new(**part) }.freeze

  def test_the_growing_class_is_named_and_each_class_judged
    words = Mallard::Report::JobClassSentences.new(CLASSES)

    assert_equal "Memory grows with LeakyJob (+9,125 KiB (5,768 … 12,481)): its jobs keep what they allocate.",
                 words.named
    assert_equal "ChurnJob: 2,470 jobs (148.6/s), p50 0.3 ms, p99 0.7 ms, 3 failed — too thin to say (the interval " \
                 "spans growth and none), +336 KiB (-4,494 … 5,166) per 1,000 jobs", words.lines[1]
    assert_match(/RareJob: 12 jobs .* too thin to say \(too few of its jobs\), — per 1,000 jobs\z/, words.lines[2])
    assert_empty Mallard::Report::JobClassSentences.new(nil).all
  end

  def test_every_view_shows_them_and_the_json_carries_them
    summary = job_summary
    terminal = printed { |io| Mallard::RunKind.named("soak").terminal(summary, color: plain).render(io) }
    json = JSON.parse(printed { |io| Mallard::Report::Json.new(summary).render(io) })
    words = Mallard::Report::JobClassSentences.new(CLASSES)

    words.all.each { |sentence| assert_includes terminal, sentence }
    page = html(summary)
    [words.named, words.basis].each { |sentence| assert_includes page, sentence }
    assert_includes page, "<th scope=\"row\">ChurnJob</th>"
    assert_equal ["LeakyJob", 2280, "growing", [5767.7, 12_481.4]],
                 json["job_classes"][0].values_at("job_class", "jobs", "judgement", "growth_kb_per_1k_jobs_ci")
    assert_equal summary, Mallard::Summary::Soak.from_h(json)
  end

  private

  def html(summary)
    CGI.unescapeHTML(printed { |io| Mallard::Report::Html.new(summary, meta: stored_meta("soak-leaky")).render(io) })
  end

  def job_summary
    jobs = Mallard::Summary::Jobs.new(processed: 4762, failed: 3, failed_pct: 0.1, per_s: 286.5)
    soak_summary("soak-leaky").with(jobs: jobs, job_classes: CLASSES)
  end

  def plain = Mallard::Report::Color::Plain.new

  def printed
    io = StringIO.new
    yield io
    io.string
  end
end
