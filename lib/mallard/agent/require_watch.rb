# frozen_string_literal: true

module Mallard
  module Agent
    # Runs a hook once something the app loads later exists. What mallard loads through RUBYOPT loads before the
    # app's server or worker has loaded anything, and the command line is the user's, so mallard cannot add a -r of
    # its own after it. Instead, each require is followed by one check of the hooks not yet installed, until each
    # says it is; then the check is one test of an empty list per later require. Used by the agent's job hooks and
    # the exporter's PumaHook.
    module RequireWatch
      # Prepended to Kernel, so it wraps whatever Kernel#require is now (RubyGems', Bootsnap's, Zeitwerk's).
      module Require
        private

        def require(path)
          super
        ensure
          RequireWatch.check
        end
      end

      @hooks = []

      class << self
        # @yieldreturn [Boolean] whether it installed what it installs (then it is not called again)
        def add(&install)
          @hooks += [install]
          Kernel.prepend(Require)
          check
        end

        # An install that requires files itself is not checked again from inside.
        def check
          return if @hooks.empty? || @checking

          begin
            @checking = true
            @hooks = @hooks.reject(&:call)
          ensure
            @checking = false
          end
        end
      end
    end
  end
end
