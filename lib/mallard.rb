# frozen_string_literal: true

require_relative "mallard/version"
require_relative "mallard/errors"
require_relative "mallard/probe/proc_files"
require_relative "mallard/probe/memory"
require_relative "mallard/probe/ruby_identity"
require_relative "mallard/allocators/library_finder"
require_relative "mallard/allocators/detection"
require_relative "mallard/allocators/allocator"
require_relative "mallard/allocators/catalog"
require_relative "mallard/target/command"
require_relative "mallard/experiments/diagnosis"
require_relative "mallard/experiments/doctor"
require_relative "mallard/analysis/findings"
require_relative "mallard/report/color"
require_relative "mallard/report/json"
require_relative "mallard/report/doctor_terminal"
require_relative "mallard/cli"

# A memory lab for Ruby applications. The executable is a shim over {Mallard::CLI}; the library
# measures (probe, target), reasons (analysis) and renders (report) in separate layers.
module Mallard
end
