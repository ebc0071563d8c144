# frozen_string_literal: true

require "test_helper"
require_relative "role_summaries"

# A job backend's memory per role in words: each role's figures, its verdict against the whole tree's jobs (or that
# the run was too short to judge it), and its ledger's parts in PSS where they were read so, else in RSS, else that
# none of its processes was read.
class RoleSentencesTest < Minitest::Test
  include RoleSummaries

  def test_each_role_is_judged_against_the_jobs_the_tree_ran
    words = Mallard::Report::RoleSentences.new(roles)
    supervisor, dispatcher, scheduler, worker = roles

    assert_equal "worker's PSS: growing, +2048.0 KiB per 1,000 jobs the tree ran (95% CI +1500.0 … +2600.0, " \
                 "tolerance 1.0 MiB)", words.verdict(worker)
    assert_match(/\Asupervisor's PSS: plateaued, \+3\.1 KiB per 1,000 jobs the tree ran/, words.verdict(supervisor))
    assert_match(/about 12,000 jobs after warm-up would decide it\z/, words.verdict(dispatcher))
    assert_equal "scheduler's PSS: too thin to judge, 4 steady samples over 120 jobs (it takes 6 samples and some " \
                 "jobs)", words.verdict(scheduler)
  end

  def test_a_roles_jobs_are_its_own_and_unsaid_where_the_agent_recorded_none
    words = Mallard::Report::RoleSentences.new(roles)

    assert_match(/\Asupervisor \(1 process, ran no jobs\): /, words.figures(roles[0]))
    assert_match(/\Adispatcher \(1 process\): /, words.figures(roles[1]))
    assert_match(/\Aworker \(2 processes, 12,345 jobs\): 29\.8 MiB steady/, words.figures(roles[3]))
  end

  def test_a_roles_ledger_is_in_pss_where_read_so_and_says_when_nothing_was_read
    words = Mallard::Report::RoleSentences.new(roles)

    assert_equal "worker's ledger in PSS, 2 of 2 processes read: ruby live 8.8 MiB, malloc 29.3 MiB, file 2.0 MiB",
                 words.ledger(roles[3])
    assert_match(/\Asupervisor's ledger in RSS \(its PSS was not read near its readings\), 1 of 1 process read: /,
                 words.ledger(roles[0]))
    assert_equal "dispatcher's ledger: the agent read none of its processes in the steady window",
                 words.ledger(roles[1])
  end

  # A summary stored before roles were judged has neither: its roles keep their figures' lines alone.
  def test_a_role_stored_without_verdict_or_ledger_says_its_figures_alone
    stored = roles.map { |role| role.with(verdict: nil, ledger: nil) }
    words = Mallard::Report::RoleSentences.new(stored)

    assert_equal stored.size + 1, words.lines.size, "a line a role and what the figures are"
    assert_equal [words.basis], words.all
    assert_empty Mallard::Report::RoleSentences.new(nil).lines
  end
end
