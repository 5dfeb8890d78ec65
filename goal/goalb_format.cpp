// collsim's own binary schedule (".goalb"), little-endian:
//
//   header, 64 bytes:   u8 magic[8] "\x89GOALB\r\n"; u32 version; u32 section_count;
//                       u32 num_ranks; u32 reserved (0); u64 num_ops; u64 num_requires;
//                       u64 num_irequires; u64 file_size; u64 header_checksum
//   section table:      section_count entries of 32 bytes:
//                       u32 id; u32 element_size; u64 offset; u64 count; u64 checksum
//   sections:           the schedule's columns in table order, each at a 64-byte aligned
//                       offset right after the previous one, zero-padded in between
//
// header_checksum is XXH3-64 of the header's first 56 bytes followed by the section table;
// each section's checksum is XXH3-64 of its bytes. Readers refuse versions they do not know.

#include <array>
#include <fstream>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "byte_io.hpp"
#include "collsim/common/checksum.hpp"
#include "collsim/common/mapped_file.hpp"
#include "collsim/goal/binary_formats.hpp"

namespace collsim::goal {

namespace {

constexpr std::uint64_t kHeaderBytes = 64;
constexpr std::uint64_t kEntryBytes = 32;
constexpr std::uint64_t kAlign = 64;
constexpr std::uint32_t kSectionCount = 13;

std::uint64_t align_up(std::uint64_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

template <typename Column>
using element_of = std::remove_const_t<typename std::remove_reference_t<Column>::element_type>;

// A file's columns, pointing at their sections inside its bytes (not yet validated as a
// schedule), and the checksum each section's table entry gives.
struct Located {
  ScheduleColumns columns;
  std::array<std::uint64_t, kSectionCount> checksum{};
};

[[noreturn]] void fail_checksum(const detail::ByteReader& in, std::uint32_t id, std::span<const std::byte> section,
                                std::span<const std::byte> bytes) {
  in.fail(static_cast<std::uint64_t>(section.data() - bytes.data()),
          "section " + std::to_string(id) + ": checksum mismatch: the file is corrupted");
}

// Checks the header, the table and the layout, and the checksums of the sections before
// `sums_from`; the caller checks the others.
Located locate_columns(std::span<const std::byte> bytes, const detail::ByteReader& in, std::uint32_t sums_from) {
  in.require(0, kHeaderBytes, "the header");
  if (std::memcmp(bytes.data(), kGoalbMagic, sizeof kGoalbMagic) != 0)
    in.fail(0, "not a collsim binary schedule (.goalb): wrong magic bytes");
  const auto version = in.load<std::uint32_t>(8);
  if (version != kGoalbVersion)
    in.fail(8, "format version " + std::to_string(version) + "; this collsim reads version " +
                   std::to_string(kGoalbVersion) + " (convert the schedule with the collsim that wrote it)");
  const auto section_count = in.load<std::uint32_t>(12);
  if (section_count != kSectionCount)
    in.fail(12, std::to_string(section_count) + " sections, version 1 has " + std::to_string(kSectionCount));
  in.require(kHeaderBytes, kEntryBytes * kSectionCount, "the section table");
  Checksum64 header_sum;
  header_sum.update(bytes.subspan(0, 56));
  header_sum.update(bytes.subspan(kHeaderBytes, kEntryBytes * kSectionCount));
  if (header_sum.digest() != in.load<std::uint64_t>(56)) in.fail(56, "header checksum mismatch: the file is corrupted");
  const auto file_size = in.load<std::uint64_t>(48);
  if (file_size != in.size())
    in.fail(48, "the header says the file has " + std::to_string(file_size) + " bytes, it has " +
                    std::to_string(in.size()) + ": truncated or appended to");

  Located located;
  ScheduleColumns& c = located.columns;
  c.num_ranks = in.load<std::uint32_t>(16);
  const auto num_ops = in.load<std::uint64_t>(24);
  // The header's counts fix every column's length; the table must agree.
  const std::uint64_t ranks = c.num_ranks;
  const std::uint64_t expected_count[kSectionCount] = {
      ranks + 1, ranks + 1, ranks + 1, num_ops, num_ops, num_ops, num_ops, num_ops, num_ops,
      num_ops + ranks, num_ops + ranks, in.load<std::uint64_t>(32), in.load<std::uint64_t>(40)};
  std::uint32_t id = 0;
  std::uint64_t next_free = kHeaderBytes + kEntryBytes * kSectionCount;
  for_each_column(c, [&](auto& column) {
    using T = element_of<decltype(column)>;
    const std::uint64_t entry = kHeaderBytes + kEntryBytes * id;
    const auto got_id = in.load<std::uint32_t>(entry);
    const auto element = in.load<std::uint32_t>(entry + 4);
    const auto offset = in.load<std::uint64_t>(entry + 8);
    const auto count = in.load<std::uint64_t>(entry + 16);
    const std::string name = "section " + std::to_string(id);
    if (got_id != id || element != sizeof(T))
      in.fail(entry, name + ": id " + std::to_string(got_id) + " with " + std::to_string(element) +
                         "-byte elements, expected id " + std::to_string(id) + " with " + std::to_string(sizeof(T)));
    if (count != expected_count[id])
      in.fail(entry + 16, name + ": " + std::to_string(count) + " elements, the header's counts give " +
                              std::to_string(expected_count[id]));
    // Sections follow each other at the next 64-byte boundary, with zeros in between, so
    // that every byte of the file is either checksummed or checked.
    if (offset != align_up(next_free))
      in.fail(entry + 8, name + ": offset " + std::to_string(offset) + ", expected " + std::to_string(align_up(next_free)));
    if (count > (in.size() - std::min(offset, in.size())) / sizeof(T))
      in.fail(entry + 8, name + ": " + std::to_string(count) + " elements at offset " + std::to_string(offset) +
                             " run past the end of the file");
    for (std::uint64_t at = next_free; at < offset; ++at)
      if (bytes[at] != std::byte{0}) in.fail(at, "padding before " + name + " is not zero: the file is corrupted");
    next_free = offset + count * sizeof(T);
    const auto data = bytes.subspan(offset, count * sizeof(T));
    located.checksum[id] = in.load<std::uint64_t>(entry + 24);
    if (id < sums_from && checksum64(data) != located.checksum[id]) fail_checksum(in, id, data, bytes);
    column = {reinterpret_cast<const T*>(data.data()), count};
    ++id;
  });
  if (next_free != in.size()) in.fail(next_free, "bytes after the last section: the file is corrupted");
  return located;
}

// The sections indexed by op and by edge (3 to 12), checksummed a range of ranks at a time
// as the schedule's check reads them: the file is read from memory once, not once for the
// sums and again for the check. The ranks' offsets must have been checked (validate() does
// so before its first call back).
class SectionSums {
 public:
  static constexpr std::uint32_t kFirst = 3;

  explicit SectionSums(const ScheduleColumns& c) : c_(c) {}

  void add_ranks(RankId end) {
    // Ranks come in order, from where the last call ended: only the end says what is new.
    const std::uint64_t op1 = c_.op_begin[end];
    const std::uint64_t upto[kSectionCount] = {0, 0, 0, op1, op1, op1, op1, op1, op1, op1 + end, op1 + end,
                                               c_.requires_begin[end], c_.irequires_begin[end]};
    std::uint32_t id = 0;
    for_each_column(c_, [&](const auto& column) {
      if (id >= kFirst) add(id, column, upto[id]);
      ++id;
    });
  }

  // Sums what is left of every section (after a check that failed part-way), and returns
  // the first section whose sum is not the table's.
  std::optional<std::uint32_t> mismatch(const std::array<std::uint64_t, kSectionCount>& expected) {
    std::uint32_t id = 0;
    std::optional<std::uint32_t> first;
    for_each_column(c_, [&](const auto& column) {
      if (id >= kFirst) {
        add(id, column, column.size());
        if (!first && sums_[id].digest() != expected[id]) first = id;
      }
      ++id;
    });
    return first;
  }

 private:
  template <typename Column>
  void add(std::uint32_t id, const Column& column, std::uint64_t upto) {
    if (upto <= done_[id]) return;
    sums_[id].update(std::as_bytes(column.subspan(done_[id], upto - done_[id])));
    done_[id] = upto;
  }

  const ScheduleColumns& c_;
  std::array<Checksum64, kSectionCount> sums_;
  std::array<std::uint64_t, kSectionCount> done_{};  // elements summed
};

bool aligned(const ScheduleColumns& c) {
  bool ok = true;
  for_each_column(c, [&](const auto& column) {
    ok = ok && reinterpret_cast<std::uintptr_t>(column.data()) % alignof(element_of<decltype(column)>) == 0;
  });
  return ok;
}

// The schedule, or the reader's error naming the file when it is not consistent.
Schedule valid_or_fail(std::variant<Schedule, std::string> checked, const detail::ByteReader& in) {
  if (auto* problem = std::get_if<std::string>(&checked)) in.fail(0, "inconsistent schedule: " + *problem);
  return std::move(std::get<Schedule>(checked));
}

}  // namespace

Schedule parse_goalb(std::span<const std::byte> bytes, const std::string& file_name) {
  const detail::ByteReader in(bytes, file_name);
  const Located located = locate_columns(bytes, in, kSectionCount);
  // The caller keeps `bytes`, so the schedule gets its own copy of the columns.
  return valid_or_fail(Schedule::checked(copy_columns(located.columns)), in);
}

Schedule read_goalb_file(const std::string& path) {
  // The schedule reads its columns straight from the mapped file, which it keeps open (and
  // so does this reader, to sum what a failed check left).
  auto file = std::make_shared<const MappedFile>(path, MappedFile::Access::InParts);
  const std::span<const std::byte> bytes = file->bytes();
  const detail::ByteReader in(bytes, path);
  const Located located = locate_columns(bytes, in, SectionSums::kFirst);
  const ScheduleColumns& c = located.columns;
  if (!aligned(c)) return parse_goalb(bytes, path);
  SectionSums sums(c);
  std::variant<Schedule, std::string> checked =
      Schedule::checked(c, file, [&](RankId, RankId end) { sums.add_ranks(end); });
  // A damaged file is reported as such, even where the damage made the schedule inconsistent
  // before its section was summed whole.
  if (const auto id = sums.mismatch(located.checksum)) {
    std::uint32_t k = 0;
    for_each_column(c, [&](const auto& column) {
      if (k++ == *id) fail_checksum(in, *id, std::as_bytes(column), bytes);
    });
  }
  return valid_or_fail(std::move(checked), in);
}

void write_goalb(const Schedule& schedule, std::ostream& out) {
  const ScheduleColumns& a = schedule.columns();
  struct Entry {
    std::uint32_t element;
    std::uint64_t offset;
    std::uint64_t count;
    std::uint64_t checksum;
    const void* data;
  };
  std::vector<Entry> entries;
  std::uint64_t pos = align_up(kHeaderBytes + kEntryBytes * kSectionCount);
  for_each_column(a, [&](const auto& column) {
    using T = element_of<decltype(column)>;
    entries.push_back({sizeof(T), pos, column.size(), checksum64(std::as_bytes(column)), column.data()});
    pos = align_up(pos + column.size() * sizeof(T));
  });
  const std::uint64_t file_size = entries.back().offset + entries.back().count * entries.back().element;

  std::array<std::byte, kHeaderBytes + kEntryBytes * kSectionCount> head{};
  auto put = [&head](std::uint64_t at, auto v) { std::memcpy(head.data() + at, &v, sizeof v); };
  std::memcpy(head.data(), kGoalbMagic, sizeof kGoalbMagic);
  put(8, kGoalbVersion);
  put(12, kSectionCount);
  put(16, a.num_ranks);
  put(20, std::uint32_t{0});
  put(24, std::uint64_t{schedule.num_ops()});
  put(32, std::uint64_t{schedule.num_requires()});
  put(40, std::uint64_t{schedule.num_irequires()});
  put(48, file_size);
  for (std::uint32_t id = 0; id < kSectionCount; ++id) {
    const std::uint64_t at = kHeaderBytes + kEntryBytes * id;
    put(at, id);
    put(at + 4, entries[id].element);
    put(at + 8, entries[id].offset);
    put(at + 16, entries[id].count);
    put(at + 24, entries[id].checksum);
  }
  Checksum64 sum;
  sum.update(std::span(head).subspan(0, 56));
  sum.update(std::span(head).subspan(kHeaderBytes));
  put(56, sum.digest());

  detail::ByteWriter w(out);
  w.put_bytes(head.data(), head.size());
  for (const Entry& e : entries) {
    w.pad_to(e.offset);
    w.put_bytes(e.data, e.count * e.element);
  }
}

void write_goalb_file(const Schedule& schedule, const std::string& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw InputError::in_file(path, "cannot open for writing");
  write_goalb(schedule, out);
  out.flush();
  if (!out) throw InputError::in_file(path, "write failed (disk full?)");
}

}  // namespace collsim::goal
