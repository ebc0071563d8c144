# frozen_string_literal: true

require_relative "mallard/version"
require_relative "mallard/errors"
require_relative "mallard/clock"
require_relative "mallard/process_status"
require_relative "mallard/lifeline"

require_relative "mallard/probe/proc_files"
require_relative "mallard/probe/memory"
require_relative "mallard/probe/ruby_identity"
require_relative "mallard/probe/process_tree"
require_relative "mallard/probe/settling"
require_relative "mallard/probe/ruby_processes"
require_relative "mallard/probe/sampler"
require_relative "mallard/probe/agent_log"
require_relative "mallard/probe/load"

require_relative "mallard/allocators/library_finder"
require_relative "mallard/allocators/detection"
require_relative "mallard/allocators/allocator"
require_relative "mallard/allocators/catalog"

require_relative "mallard/agent/rackup"
require_relative "mallard/target/command"
require_relative "mallard/target/free_port"
require_relative "mallard/target/http_probe"
require_relative "mallard/target/subject_environment"
require_relative "mallard/target/rack_app"
require_relative "mallard/target/server_command"
require_relative "mallard/target/script"

require_relative "mallard/run/jsonl_writer"
require_relative "mallard/run/directory"
require_relative "mallard/run/meta"
require_relative "mallard/run/stored"

require_relative "mallard/analysis/statistics"
require_relative "mallard/analysis/warmup"
require_relative "mallard/analysis/leak_verdict"
require_relative "mallard/analysis/findings"
require_relative "mallard/analysis/request_axis"
require_relative "mallard/analysis/load_figures"
require_relative "mallard/analysis/app_figures"
require_relative "mallard/analysis/gc_figures"
require_relative "mallard/analysis/load_window"
require_relative "mallard/analysis/soak_summary"
require_relative "mallard/analysis/comparison"
require_relative "mallard/analysis/deploy_snippets"
require_relative "mallard/analysis/recommendation"
require_relative "mallard/analysis/steady_series"
require_relative "mallard/analysis/run_diff"

require_relative "mallard/experiments/diagnosis"
require_relative "mallard/experiments/doctor"
require_relative "mallard/experiments/soak_options"
require_relative "mallard/experiments/soak"
require_relative "mallard/experiments/compare_summary"
require_relative "mallard/experiments/compare"

require_relative "mallard/report/color"
require_relative "mallard/report/units"
require_relative "mallard/report/json"
require_relative "mallard/report/sparkline"
require_relative "mallard/report/progress"
require_relative "mallard/report/doctor_terminal"
require_relative "mallard/report/soak_terminal"
require_relative "mallard/report/compare_progress"
require_relative "mallard/report/compare_terminal"
require_relative "mallard/report/html"
require_relative "mallard/report/diff_terminal"

require_relative "mallard/cli"

# A memory lab for Ruby applications. The executable is a shim over {Mallard::CLI}; the library
# measures (probe, target, agent), reasons (analysis) and renders (report) in separate layers.
module Mallard
end
