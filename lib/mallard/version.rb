# frozen_string_literal: true

module Mallard
  VERSION = "0.1.0"
end
