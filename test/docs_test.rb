# frozen_string_literal: true

require "test_helper"
require "mallard/exporter/exposition"

# The README points to docs/, one page per command. Each page documents every option its command's --help lists,
# the exporter's page every metric it serves, and every link in the README, docs/ and bench/README.md leads to a
# file, and a heading, that exist.
class DocsTest < Minitest::Test
  include CliRuns

  ROOT = File.expand_path("..", __dir__)
  PAGES = ["README.md", "bench/README.md", *Dir.glob("docs/*.md", base: ROOT)].freeze
  # An option line of --help: "        --duration SECONDS   …" or "    -h, --help   …".
  OPTION = /^\s+(?:-\w, )?(--[a-z][\w-]*)/
  LINK = /\]\(([^)\s]+)\)/
  FENCE = /^\s*```/

  def test_every_option_a_commands_help_lists_is_on_its_page
    Mallard::CLI::COMMANDS.each_key do |command|
      page = read("docs/#{command}.md")
      missing = help_options(command).reject { |option| page.match?(/`#{Regexp.escape(option)}(?![\w-])/) }

      assert_empty missing, "docs/#{command}.md leaves out options `mallard #{command} --help` lists"
    end
  end

  def test_every_metric_the_exporter_serves_is_on_its_page
    page = read("docs/exporter.md")
    missing = Mallard::Exporter::Exposition::FAMILIES.map(&:name).reject { |name| page.include?("`#{name}") }

    assert_empty missing, "docs/exporter.md leaves out metrics the exporter serves"
  end

  def test_every_link_leads_to_a_file_and_heading_that_exist
    broken = PAGES.flat_map { |page| links(page).reject { |link| resolves?(page, link) } }

    assert_empty broken, "links to no file, or to no heading in it"
  end

  private

  def read(path)
    File.read(File.join(ROOT, path))
  end

  def help_options(command)
    status, out, err = run_cli(command, "--help")
    assert_equal 0, status, err
    out.scan(OPTION).flatten.uniq
  end

  # Outside code blocks: a shell comment there is no heading, nor a `](` a link.
  def prose_lines(path)
    inside = false
    read(path).lines.reject { |line| (inside = !inside if line.match?(FENCE)) || inside }
  end

  # @return [Array<String>] "page -> target" for the links to this repository's files
  def links(page)
    prose_lines(page).join.scan(LINK).flatten.grep_v(/\A[a-z]+:/).map { |target| "#{page} -> #{target}" }
  end

  def resolves?(page, link)
    target = link.split(" -> ", 2).last
    file, anchor = target.split("#", 2)
    path = file.empty? ? page : File.join(File.dirname(page), file)
    return false unless File.exist?(File.join(ROOT, path))

    anchor.nil? || anchors(path).include?(anchor)
  end

  # As GitHub makes them: lower case, punctuation dropped, spaces as hyphens, a repeated one numbered.
  def anchors(path)
    seen = Hash.new(-1)
    prose_lines(path).grep(/\A#+ /).map do |heading|
      slug = heading.sub(/\A#+ /, "").strip.downcase.gsub(/[^\p{Word}\- ]/, "").tr(" ", "-")
      seen[slug] += 1
      seen[slug].zero? ? slug : "#{slug}-#{seen[slug]}"
    end
  end
end
