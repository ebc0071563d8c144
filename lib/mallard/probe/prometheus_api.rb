# frozen_string_literal: true

require "json"
require "net/http"
require "uri"

module Mallard
  module Probe
    # Prometheus's HTTP API, as far as `mallard fleet` reads it: a range query, its raw result handed back as
    # Prometheus sent it (the run directory keeps it so). Failures become mallard errors that say what to do: a
    # Prometheus that does not answer is Unavailable; one that refuses the query (a bad selector) is a UsageError
    # quoting its reason.
    class PrometheusApi
      OPEN_TIMEOUT = 5
      READ_TIMEOUT = 60

      # @param url [String] Prometheus's base URL, with any path prefix it is served under (http://host/prometheus)
      def initialize(url)
        @uri = URI.parse(url.to_s.chomp("/"))
        return if @uri.is_a?(URI::HTTP) && @uri.host

        raise UsageError, "--prometheus #{url}: give an http:// or https:// URL"
      rescue URI::InvalidURIError
        raise UsageError, "--prometheus #{url}: not a URL"
      end

      # @return [Array<Hash>] the matrix: { "metric" => labels, "values" => [[unix time, "value"], ...] } per series
      def query_range(query, start:, finish:, step:)
        form = { "query" => query, "start" => format("%.3f", start), "end" => format("%.3f", finish),
                 "step" => format("%gs", step) }
        body = post("/api/v1/query_range", form)
        body.fetch("data", {}).fetch("result", [])
      end

      # The URL without credentials, which must not reach a terminal, a log or a run directory.
      def display
        uri = @uri.dup
        uri.user = nil
        uri.password = nil
        uri.to_s
      end

      private

      def post(path, form)
        request = Net::HTTP::Post.new("#{@uri.path}#{path}")
        request.set_form_data(form)
        credentials(request)
        response = Net::HTTP.start(@uri.host, @uri.port, use_ssl: @uri.scheme == "https", open_timeout: OPEN_TIMEOUT,
                                                         read_timeout: READ_TIMEOUT) { |http| http.request(request) }
        answer(response, form["query"])
      rescue SystemCallError, SocketError, Net::OpenTimeout, Net::ReadTimeout, OpenSSL::SSL::SSLError, EOFError => e
        raise Unavailable, "cannot reach Prometheus at #{display}: #{e.message.sub(/ - connect\(2\)[^)]*/, '')} " \
                           "(is it running, and is --prometheus its URL?)"
      end

      # http://user:password@host/ for a Prometheus behind basic authentication.
      def credentials(request)
        return unless @uri.user

        request.basic_auth(*[@uri.user, @uri.password.to_s].map { |part| URI.decode_www_form_component(part) })
      end

      # Prometheus answers a bad query with 400 and a JSON error; anything not JSON is some other server.
      def answer(response, query)
        body = JSON.parse(response.body.to_s)
        return body if response.is_a?(Net::HTTPSuccess) && body["status"] == "success"

        error = "#{body['errorType']}: #{body['error']}"
        raise UsageError, "Prometheus refused the query #{query}: #{error}" if response.code == "400"

        raise Unavailable, "Prometheus at #{display} answered #{response.code}: #{error}"
      rescue JSON::ParserError
        raise Unavailable, "#{display} answered #{response.code} with something other than Prometheus's API " \
                           "(is --prometheus the URL of Prometheus itself?)"
      end
    end
  end
end
