# frozen_string_literal: true

# Diagnoses built by hand, for the pure layers (findings, views) that never touch a process.
module Diagnoses
  def diagnosis(allocator: "glibc", via: "default", threads: 8, env: {}, ruby: true, **overrides)
    detection = Mallard::Allocators::Detection.new(
      name: allocator, via: via, path: "/usr/lib/lib#{allocator}.so", also_mapped: [], preload_missing: []
    )
    Mallard::Summary::Diagnosis.new(
      pid: 4242, command: %w[puma -C config/puma.rb], executable: "/usr/bin/ruby3.1",
      ruby: ruby ? Mallard::Probe::RubyIdentity.new(engine: "ruby", version: "3.1.2", source: "executable") : nil,
      yjit_requested: false, allocator: detection, threads: threads,
      environment: Mallard::Summary::Diagnosis.relevant_environment(env),
      memory: Mallard::Probe::MemoryReading.new(rss_kb: 204_800, pss_kb: 150_000, uss_kb: 140_000, swap_kb: 0),
      verification_problems: [], findings: [], catalog: [], **overrides
    )
  end

  # A setting as the process's Ruby took it (Probe::SettingsCheck, Probe::YjitCheck).
  def check(name, value, status, **found)
    Mallard::Summary::SettingCheck.new(name: name, value: value, status: status, **found)
  end

  def findings_for(diagnosis, cpus: 2)
    Mallard::Analysis::Findings.for(diagnosis, cpus: cpus)
  end
end
