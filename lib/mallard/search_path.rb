# frozen_string_literal: true

module Mallard
  # Whether a command is installed: an executable file of that name in a directory of PATH.
  module SearchPath
    module_function

    def include?(name, path: ENV.fetch("PATH", ""))
      path.split(File::PATH_SEPARATOR).any? do |dir|
        candidate = File.join(dir, name)
        File.file?(candidate) && File.executable?(candidate)
      end
    end
  end
end
