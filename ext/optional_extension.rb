# frozen_string_literal: true

# Shared by mallard's extconf.rb files: both extensions are optional, so where one cannot be built its
# extconf writes a Makefile that builds nothing (`gem install mallard` still succeeds) and records why next to
# where the built extension would be installed, so the Ruby side can tell "not supported here" from "not built
# yet" without loading anything.
module OptionalExtension
  module_function

  # @param name [String] the extension's file name in lib/mallard, e.g. "trim_ext"
  def reason_file(name)
    File.expand_path("../lib/mallard/#{name}.unavailable", __dir__)
  end

  # @param consequence [String] what the user loses, for the build's warning
  def unavailable(name, reason, consequence, source_dir)
    File.write(reason_file(name), "#{reason}\n")
    warn "mallard: #{reason}; #{consequence}"
    File.write("Makefile", dummy_makefile(source_dir).join)
  end

  def available(name)
    FileUtils.rm_f(reason_file(name))
  end
end
