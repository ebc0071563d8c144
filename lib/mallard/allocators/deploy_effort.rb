# frozen_string_literal: true

module Mallard
  module Allocators
    # How much a deployment must change to run a configuration, least first; Report::Words::DEPLOYS words each
    # level, and the recommendation prefers the least between configurations it cannot tell apart.
    module DeployEffort
      NOTHING = 0
      ENVIRONMENT = 1
      # A line in the app's code: a file of mallard's required (glibc-trim), or an action after boot (AfterBoot).
      APP_CODE = 2
      LIBRARY = 3
      RUBY_CHANGE = 4

      module_function

      # A row of a comparison against its baseline: its allocator's effort (Allocator#deploy_effort), or more where
      # it changes more. Another Ruby than the baseline's is the most a deployment can change; YJIT turned on, or its
      # code region sized, takes a variable.
      # @param row, baseline [#allocator, #ruby, #yjit, #shape] ruby: a Target::SubjectRuby or nil; yjit: "on", "off",
      #   a size in MiB ("16") or nil; shape: a PumaShape or nil
      # @return [Integer] one of the levels above
      def of(row, baseline:)
        efforts = [row.allocator.deploy_effort]
        efforts << RUBY_CHANGE if row.ruby && row.ruby.path != baseline.ruby&.path
        efforts << ENVIRONMENT if YjitMode.on?(row.yjit) && row.yjit != baseline.yjit
        efforts << shape_effort(row.shape, baseline.shape) if row.shape
        efforts.max
      end

      # Another Puma shape: workers and threads are variables (WEB_CONCURRENCY, RAILS_MAX_THREADS); preloading or not,
      # fork_worker, and warmup or compaction before fork are lines of config/puma.rb; Pitchfork is another server, a
      # gem the app adds. Solid Queue's mode (compare --modes, riding the rows as a shape) is a variable too,
      # SOLID_QUEUE_SUPERVISOR_MODE, or bin/jobs --mode; inside Puma, SOLID_QUEUE_IN_PUMA (the plugin's line is in a
      # Rails 8 app's config/puma.rb).
      # @param shape, baseline [PumaShape, SolidQueueMode, nil]
      def shape_effort(shape, baseline)
        return NOTHING if shape == baseline
        return ENVIRONMENT if shape.is_a?(SolidQueueMode)
        return LIBRARY if shape.pitchfork? && !baseline&.pitchfork?
        return APP_CODE if shape.preloaded? != baseline&.preloaded? || shape.variant != baseline&.variant ||
                           shape.refork_after != baseline&.refork_after

        ENVIRONMENT
      end
    end
  end
end
