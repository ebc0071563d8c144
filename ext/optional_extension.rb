# frozen_string_literal: true

require_relative "../lib/mallard/extension_abi"

# Shared by mallard's extconf.rb files: the extensions are optional, so where one cannot be built its
# extconf writes a Makefile that builds nothing (`gem install mallard` still succeeds) and records why next to
# where the built extension would be installed, so the Ruby side can tell "not supported here" from "not built
# yet" without loading anything. Where that is: lib/mallard, or MALLARD_EXT_OUT when mallard builds them for an
# app's Ruby into its cache (Mallard::ExtensionBuild). Each build also records which Ruby it is for
# (extensions.abi), so that no other Ruby loads it.
module OptionalExtension
  OUT_VARIABLE = "MALLARD_EXT_OUT"

  module_function

  def out_dir
    ENV.fetch(OUT_VARIABLE) { File.expand_path("../lib/mallard", __dir__) }
  end

  # @param name [String] the extension's file name in lib/mallard, e.g. "trim_ext"
  def reason_file(name)
    File.join(out_dir, "#{name}.unavailable")
  end

  # @param consequence [String] what the user loses, for the build's warning
  def unavailable(name, reason, consequence, source_dir)
    File.write(reason_file(name), "#{reason}\n")
    warn "mallard: #{reason}; #{consequence}"
    File.write("Makefile", dummy_makefile(source_dir).join)
  end

  def available(name)
    FileUtils.rm_f(reason_file(name))
    stamp = File.join(out_dir, "extensions.abi")
    File.write("#{stamp}.#{Process.pid}", "#{Mallard::ExtensionAbi.key}\n")
    File.rename("#{stamp}.#{Process.pid}", stamp)
  end
end
