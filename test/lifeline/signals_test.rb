# frozen_string_literal: true

require "test_helper"

# Real signals sent to this test process.
class SignalsTest < Minitest::Test
  Signals = Mallard::Lifeline::Signals

  def test_the_first_signal_raises_and_a_second_is_only_remembered
    raised = assert_raises(SignalException) do
      Signals.guard do
        Process.kill("TERM", Process.pid)
        sleep 5 # the signal ends the sleep
      end
    end
    assert_equal Signal.list["TERM"], raised.signo
  end

  def test_signals_while_deferred_are_remembered_not_raised
    finished = false
    Signals.guard do
      Signals.deferred do
        Process.kill("INT", Process.pid)
        Process.kill("INT", Process.pid)
        sleep 0.2
        finished = true
      end
      assert_equal "SIGINT", Signals.received
    end

    assert finished, "the deferred block ran to its end"
  end

  def test_after_the_first_signal_later_ones_do_not_raise
    Signals.guard do
      assert_raises(Interrupt) do
        Process.kill("INT", Process.pid)
        sleep 5
      end
      Process.kill("INT", Process.pid)
      sleep 0.2
      assert_equal "SIGINT", Signals.received
    end
  end

  def test_the_handlers_before_the_guard_are_restored
    previous = Signal.trap("HUP", "IGNORE")
    Signals.guard { nil }

    assert_equal "IGNORE", Signal.trap("HUP", previous)
  end
end
