# frozen_string_literal: true

require "fileutils"
require "tmpdir"

# A real run that several tests of a class only read, made once: by the first test that asks for it, inside that
# test, so the test's own time limit (Processes::TIME_LIMIT) covers the start and a hang or failure there names it.
# A start that fails keeps nothing, and the next test to ask starts the run again. A test that changes or stops a
# run starts its own, or works on a copy.
module SharedRuns
  def self.included(test_class)
    super
    test_class.extend(ClassMethods)
  end

  # Each class's runs and the directory they are written under, removed once every test has run.
  module ClassMethods
    def shared_runs
      @shared_runs ||= {}
    end

    def shared_runs_dir
      @shared_runs_dir ||= Dir.mktmpdir("mallard-shared-runs").tap do |dir|
        Minitest.after_run { FileUtils.remove_entry(dir) }
      end
    end
  end

  private

  # What the block makes of a run it writes into the directory it is given, made the first time a test of the class
  # asks for name; every later test gets the same value.
  def shared_run(name)
    runs = self.class.shared_runs
    return runs[name] if runs.key?(name)

    out_dir = File.join(self.class.shared_runs_dir, name)
    FileUtils.rm_rf(out_dir) # what a failed start left
    runs[name] = yield out_dir
  end
end
