# frozen_string_literal: true

module Mallard
  # The run model's value objects: keyword Structs whose members may hold other values, or arrays of them.
  # Frozen once built (the arrays and hashes they hold are not): a changed copy comes from #with. #to_h gives plain
  # hashes ready for JSON; .from_h reloads them from symbol or string keys, so a summary
  # written to summary.json and read back is the same value as the one computed live, and every view reads
  # one shape. Free-form Hash members (GC.stat, status codes) are keyed by strings, as JSON keys them.
  module Value
    # @param members [Array<Symbol>] plain members: numbers, strings, and arrays or string-keyed hashes of those
    # @param nested [Hash{Symbol=>Class, Array(Class)}] members holding a value, or ([Class]) an array of them
    def self.define(*members, **nested, &block)
      klass = Struct.new(*members, *nested.keys, keyword_init: true)
      klass.instance_variable_set(:@nested, nested.freeze)
      # The list members, empty unless given: found once here, not each time a value is built.
      klass.instance_variable_set(:@lists, nested.filter_map { |name, type| name if type.is_a?(Array) }.freeze)
      klass.extend(ClassMethods)
      klass.include(InstanceMethods)
      klass.class_eval(&block) if block
      klass
    end

    # JSON-ready: values to hashes, hash keys to strings.
    def self.plain(value)
      case value
      when InstanceMethods then value.to_h
      when Array then value.map { |item| plain(item) }
      when Hash then value.to_h { |key, item| [key.to_s, plain(item)] }
      else value
      end
    end

    # Members renamed since summaries were first stored, with the key an earlier mallard wrote: a stored
    # summary.json keeps loading. (`method` hid Object#method on every value that had it.)
    RENAMED = { methodology: "method" }.freeze

    # .from_h for every value class.
    module ClassMethods
      # @param hash [Hash, nil] symbol or string keys; keys the value does not know are ignored
      def from_h(hash)
        return hash if hash.nil? || hash.is_a?(self)

        new(**members.to_h { |name| [name, load(name, stored(hash, name))] })
      end

      private

      def stored(hash, name)
        return hash[name] if hash.key?(name)
        return hash[name.to_s] if hash.key?(name.to_s)

        old = RENAMED[name]
        old && (hash.key?(old) ? hash[old] : hash[old.to_sym])
      end

      # A list of values that a record does not have (an older schema) is empty, not nil.
      def load(name, value)
        type = @nested[name]
        return Value.plain(value) if type.nil? && value.is_a?(Hash)
        return Array(value).map { |item| type.first.from_h(item) } if type.is_a?(Array)
        return value if type.nil? || value.nil?

        type.from_h(value)
      end
    end

    # Kernel's #class, for a value with a member called class (a heap site's), which hides it.
    KERNEL_CLASS = Kernel.instance_method(:class)

    # #with for any keyword Struct: a value's, and a run model's (Run::SoakRun), which is built once too.
    module Copy
      # A copy with these members changed, as Ruby 3.2's Data#with.
      # @raise [ArgumentError] for a member the struct does not have
      def with(**changes)
        KERNEL_CLASS.bind_call(self).new(**members.to_h { |name| [name, self[name]] }.merge(changes))
      end
    end

    # Frozen when built, #with, and #to_h plain all the way down.
    module InstanceMethods
      include Copy

      # Free-form hashes get string keys at once, and a list of values not given is empty, as .from_h makes it: a
      # live value reads like a reloaded one.
      def initialize(**members)
        # A new empty list for each value: values are frozen, the lists they hold are not.
        lists = KERNEL_CLASS.bind_call(self).instance_variable_get(:@lists)
        given = lists.to_h { |name| [name, []] }.merge(members.compact)
        super(**given.transform_values { |value| value.is_a?(Hash) ? Value.plain(value) : value })
        freeze
      end

      def to_h
        members.to_h { |name| [name, Value.plain(self[name])] }
      end
    end
  end
end
