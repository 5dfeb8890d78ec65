#include "collsim/report/svg_canvas.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace collsim::report {

std::string escape_xml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

std::string num(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", v);
  return text;
}

std::string titled(std::string_view tooltip) {
  return tooltip.empty() ? "" : "<title>" + escape_xml(tooltip) + "</title>";
}

}  // namespace

SvgCanvas::SvgCanvas(double width, double height) : width_(width), height_(height) {}

void SvgCanvas::rect(double x, double y, double w, double h, std::string_view fill, std::string_view tooltip) {
  body_ += "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(std::max(0.0, w)) + "\" height=\"" +
           num(std::max(0.0, h)) + "\" fill=\"" + escape_xml(fill) + "\">" + titled(tooltip) + "</rect>\n";
}

void SvgCanvas::line(double x1, double y1, double x2, double y2, std::string_view stroke, double width) {
  body_ += "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" + num(y2) +
           "\" stroke=\"" + escape_xml(stroke) + "\" stroke-width=\"" + num(width) + "\"/>\n";
}

void SvgCanvas::text(double x, double y, std::string_view text, std::string_view anchor, double size) {
  body_ += "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" + escape_xml(anchor) + "\" font-size=\"" +
           num(size) + "\">" + escape_xml(text) + "</text>\n";
}

void SvgCanvas::polyline(const std::string& points, std::string_view stroke, double width, std::string_view tooltip) {
  body_ += "<polyline fill=\"none\" points=\"" + points + "\" stroke=\"" + escape_xml(stroke) + "\" stroke-width=\"" +
           num(width) + "\">" + titled(tooltip) + "</polyline>\n";
}

std::string SvgCanvas::str() const {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(width_) + "\" height=\"" + num(height_) +
         "\" viewBox=\"0 0 " + num(width_) + " " + num(height_) + "\" font-family=\"sans-serif\">\n" + body_ + "</svg>\n";
}

std::string_view palette(std::size_t i) {
  static constexpr std::array<std::string_view, 10> kColours = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                                                "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
  return kColours[i % kColours.size()];
}

std::string heat_colour(double v) {
  if (!(v > 0)) return "#ffffff";
  v = std::min(1.0, v);
  // White (0) -> yellow (1/3) -> orange-red (2/3) -> dark red (1).
  const double r = v < 2.0 / 3 ? 255 : 255 - (v - 2.0 / 3) * 3 * 127;
  const double g = v < 1.0 / 3 ? 255 - v * 3 * 30 : std::max(0.0, 225 - (v - 1.0 / 3) * 3 * 225 / 2);
  const double b = v < 1.0 / 3 ? 255 - v * 3 * 255 : 0;
  char text[8];
  std::snprintf(text, sizeof text, "#%02x%02x%02x", static_cast<int>(std::lround(r)), static_cast<int>(std::lround(g)),
                static_cast<int>(std::lround(b)));
  return text;
}

}  // namespace collsim::report
