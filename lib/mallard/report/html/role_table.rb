# frozen_string_literal: true

module Mallard
  module Report
    class Html
      # A job backend's memory per role (Summary::RolePart): a row a role with its processes, the jobs they ran, its PSS
      # (steady, first, last, peak), and its verdict and ledger as the presenter words them (RoleSentences).
      class RoleTable < View
        # @param roles [Array<Summary::RolePart>, nil]
        # @param words [RoleSentences] the roles' presenter
        def initialize(roles, words:)
          super()
          @roles = Array(roles)
          @words = words
        end

        def to_s = @roles.empty? ? nil : super

        template <<~'ERB'
          <table class="roles">
          <thead><tr><th scope="col">Role</th><th scope="col">Processes</th><th scope="col">Jobs run</th>
          <th scope="col">Steady PSS</th><th scope="col">First</th><th scope="col">Last</th><th scope="col">Peak</th>
          <th scope="col">Verdict</th><th scope="col">Ledger</th></tr></thead>
          <tbody>
          <%- @roles.each do |role| -%>
          <tr><th scope="row"><%= role.role %></th><td><%= role.processes %></td><td><%= count(role.jobs) %></td>
          <td><%= mib(role.steady_pss_kb) %></td><td><%= mib(role.first_pss_kb) %></td><td><%= mib(role.last_pss_kb) %></td>
          <td><%= mib(role.peak_pss_kb) %></td><td><%= @words.verdict(role) %></td><td><%= @words.ledger(role) %></td></tr>
          <%- end -%>
          </tbody>
          </table>
        ERB
      end
    end
  end
end
