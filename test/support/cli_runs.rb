# frozen_string_literal: true

require "stringio"

# mallard's CLI run in this process, its output captured: for commands that start nothing.
module CliRuns
  private

  # @return [Array(Integer, String, String)] exit status, stdout, stderr
  def run_cli(*argv)
    out = StringIO.new
    err = StringIO.new
    status = Mallard::CLI.new.run(argv, out: out, err: err, env: {})
    [status, out.string, err.string]
  end
end
