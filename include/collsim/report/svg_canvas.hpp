#pragma once
// An SVG drawing built as text: what the report's charts are, so that the page needs no
// script and no library to show them. Coordinates are pixels; every element may carry a
// tooltip (<title>), which browsers show on hover.

#include <string>
#include <string_view>

namespace collsim::report {

// Text made safe inside XML or HTML content and attribute values.
std::string escape_xml(std::string_view text);

class SvgCanvas {
 public:
  SvgCanvas(double width, double height);
  void rect(double x, double y, double w, double h, std::string_view fill, std::string_view tooltip = {});
  void line(double x1, double y1, double x2, double y2, std::string_view stroke, double width = 1);
  // anchor: start, middle or end.
  void text(double x, double y, std::string_view text, std::string_view anchor = "start", double size = 11);
  // "x1,y1 x2,y2 ..."
  void polyline(const std::string& points, std::string_view stroke, double width = 1.5, std::string_view tooltip = {});
  std::string str() const;

 private:
  double width_, height_;
  std::string body_;
};

// A colour per index from a palette that tells neighbours apart.
std::string_view palette(std::size_t i);
// The heat map's colour for a value in [0, 1] (white through yellow and orange to dark red).
std::string heat_colour(double v);

}  // namespace collsim::report
