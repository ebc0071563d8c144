# frozen_string_literal: true

require_relative "ledger"
require_relative "ledger_mappings"
require_relative "ledger_parts"

module Mallard
  module Analysis
    # The memory ledger per role of a job backend's tree: the agent runs in every process of it and its readings carry
    # the process's pid, so each role's parts (Ruby's heap, malloc, file-backed code, stacks…) are its processes'
    # summed, each at its last reading in the steady window, in RSS and in PSS (LedgerParts), which is what explains
    # the role's PSS. Only what was read is summed: a role none of whose processes the agent read in the window has
    # no parts and says so (processes_read 0) rather than borrowing another's. Pure.
    module RoleLedger
      module_function

      # @param run [Run::SoakRun]
      # @param roles [Hash{Integer => String}] each process's role (RoleMemory.roles)
      # @param steady [SteadyWindow::Window]
      # @return [Hash{String => Summary::RoleLedger}, nil] by role; nil for a run without ledger readings
      def call(run, roles, steady)
        return if run.ledger.empty?

        latest = latest(run, steady).group_by { |record| roles[record.pid] }
        roles.values.uniq.to_h { |role| [role, ledger(latest.fetch(role, []))] }
      end

      # Each process's last reading in the steady window, with its mappings joined: the last whose PSS was read, if
      # any was, so its parts in RSS and in PSS are of one reading.
      def latest(run, steady)
        first, last = steady.samples.values_at(0, -1).map { |sample| sample&.t }
        return [] unless first

        inside = run.ledger.select { |record| record.t.between?(first, last) }
        LedgerMappings.call(inside, run.processes).group_by(&:pid).values.map do |readings|
          readings.reverse.find(&:pss_kb) || readings.last
        end
      end

      def ledger(records)
        return Summary::RoleLedger.new(processes_read: 0, parts: []) if records.empty?

        rss = Ledger.summed_parts(records.map { |record| LedgerParts.call(record) })
        pss = records.map { |record| LedgerParts.pss(record) }
        pss = pss.any?(&:nil?) ? {} : Ledger.summed_parts(pss)
        Summary::RoleLedger.new(processes_read: records.size, rss_kb: sum(records.map(&:rss_kb)),
                                pss_kb: sum(records.map(&:pss_kb)), explained_pct: Ledger.explained_pct(rss),
                                parts: parts(rss, pss))
      end

      def parts(rss, pss)
        LedgerParts::NAMES.filter_map do |name|
          next if rss[name].nil? && pss[name].nil?

          Summary::LedgerPart.new(name: name, kb: rss[name], pss_kb: pss[name])
        end
      end

      # A figure unread in any process is unread in the sum.
      def sum(values) = (values.sum unless values.any?(&:nil?))

      private_class_method :latest, :ledger, :parts, :sum
    end
  end
end
