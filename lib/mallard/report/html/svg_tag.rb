# frozen_string_literal: true

require "erb"

module Mallard
  module Report
    class Html
      # SVG elements as strings, every attribute value escaped, so chart code handles names and numbers,
      # never markup. stroke_width: becomes stroke-width=; camelCase names (viewBox:) are kept.
      module SvgTag
        module_function

        # @param content [String, nil] markup already escaped (nested tags, or h(text))
        def tag(name, content = nil, **attributes)
          attrs = attributes.filter_map do |key, value|
            %( #{key.to_s.tr('_', '-')}="#{ERB::Util.html_escape(value)}") unless value.nil?
          end.join
          content.nil? ? "<#{name}#{attrs}/>" : "<#{name}#{attrs}>#{content}</#{name}>"
        end

        def h(text) = ERB::Util.html_escape(text)
      end
    end
  end
end
