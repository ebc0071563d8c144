# frozen_string_literal: true

$LOAD_PATH.unshift(File.expand_path("../lib", __dir__))
require "mallard"
require "minitest/autorun"
require "open3"
require "stringio"
require "timeout"
require_relative "support/processes"
require_relative "support/diagnoses"
