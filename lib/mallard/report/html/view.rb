# frozen_string_literal: true

require "erb"

module Mallard
  module Report
    class Html
      # Markup already escaped (rendered by a view or drawn by a chart): passed through untouched.
      class Safe < String
        # ERB calls to_s on every <%= %> value; String#to_s on a subclass would drop the marker.
        def to_s = self
      end

      # A small ERB view that escapes every <%= %> unless the value is Safe. Everything a report shows
      # came from the app, the run or the command line (paths, argv, request paths, flags), so escaping
      # is the default rather than a h() each template must remember.
      class View
        include Formatting

        # ERB whose <%= x %> compiles to `_erbout.<< escape((x).to_s)` instead of `_erbout.<<((x).to_s)`.
        class Template < ERB
          # ERB's own hook for choosing the output commands.
          def set_eoutvar(compiler, eoutvar = "_erbout")
            super
            compiler.insert_cmd = "#{eoutvar}.<< escape"
          end
        end

        # Compiles the template once, into a method of the view class. Evaluated from here, so constants
        # in templates resolve as in this file (Html::Figures as Figures). Located at the template, not
        # here, so an error names the view's file and the template's line (less one: ERB's source opens
        # with a magic comment line).
        def self.template(text)
          source = Template.new(text, trim_mode: "-").src
          at = caller_locations(1, 1).first
          class_eval(<<~RUBY, at.path, at.lineno - 1) # rubocop:disable Style/EvalWithLocation
            def render_template # def render_template
              #{source}         #   _erbout = +''; _erbout.<< "<h2>".freeze; _erbout.<< escape(( @title ).to_s); …
            end                 # end
          RUBY
        end

        def to_s = Safe.new(render_template)

        private

        def escape(value)
          value.is_a?(Safe) ? value : ERB::Util.html_escape(value)
        end

        # A figure with its decimals, or a dash when the run did not record it.
        def number(value, decimals = 1)
          value.nil? ? "—" : format("%.#{decimals}f", value)
        end
      end
    end
  end
end
