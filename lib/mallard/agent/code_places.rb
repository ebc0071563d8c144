# frozen_string_literal: true

module Mallard
  module Agent
    # Where a Ruby process's code lives, for the analysis to say which gem a file belongs to (Analysis::FileOwners):
    # each loaded gem's directories, Ruby's own library directories, and the app's. Read inside the process.
    module CodePlaces
      module_function

      # @return [Array(String, String, Array<String>)] name, version, directories
      def gems
        return [] unless defined?(Gem) && Gem.respond_to?(:loaded_specs)

        Gem.loaded_specs.values.map do |spec|
          [spec.name, spec.version.to_s, [spec.full_gem_path, *spec.full_require_paths].uniq]
        end
      end

      # Ruby's own library directories, and where the system puts libraries beside it (Debian's vendor_ruby).
      def ruby_dirs
        RbConfig::CONFIG.values_at("rubylibdir", "rubyarchdir", "vendordir", "vendorarchdir", "sitedir",
                                   "sitearchdir").compact.uniq
      end

      def to_h
        { "gems" => gems, "ruby_dirs" => ruby_dirs, "app_dir" => Dir.pwd }
      end
    end
  end
end
