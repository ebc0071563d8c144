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

  # A Puma master and two workers, each worker sharing `shared_kb` of its 70 MiB with the rest of the tree.
  def puma_tree(shared_kb:)
    workers = [0, 1].map do |index|
      { pid: 4243 + index, parent: 4242, title: "puma: cluster worker #{index}: 4242 [app]", pool_threads: 5,
        memory: { rss_kb: 71_680, pss_kb: 71_680 - (shared_kb / 2), uss_kb: 71_680 - shared_kb, swap_kb: 0 } }
    end
    master = { pid: 4242, parent: 1, title: "puma 5.6.5 (tcp://127.0.0.1:3000) [app]", pool_threads: 0,
               memory: { rss_kb: 73_728, pss_kb: 30_000, uss_kb: 3_000, swap_kb: 0 } }
    Mallard::Analysis::TreeShape.call([master, *workers])
  end

  def findings_for(diagnosis, cpus: 2)
    Mallard::Analysis::Findings.for(diagnosis, cpus: cpus)
  end
end
