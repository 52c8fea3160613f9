package app

import (
	"fmt"
	"strconv"
	"strings"
)

// ByteSize is a size flag value in bytes. It parses a plain number of bytes
// or a number with a binary unit (K/KiB, M/MiB, G/GiB; also KB/MB/GB, read
// as binary), e.g. "4MiB", "512k", "1048576", and prints in the largest
// unit that divides it exactly.
type ByteSize int64

var sizeUnits = []struct {
	suffixes []string
	mult     int64
}{
	{[]string{"gib", "gb", "g"}, 1 << 30},
	{[]string{"mib", "mb", "m"}, 1 << 20},
	{[]string{"kib", "kb", "k"}, 1 << 10},
	{[]string{"b", ""}, 1},
}

// ParseByteSize parses s as a ByteSize; negative and overflowing sizes are errors.
func ParseByteSize(s string) (ByteSize, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	for _, u := range sizeUnits {
		for _, suf := range u.suffixes {
			num, ok := strings.CutSuffix(t, suf)
			if !ok {
				continue
			}
			n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
			if err != nil {
				continue // e.g. "4mib" tried as "4mi" + "b"
			}
			if n < 0 || n > (1<<62)/u.mult {
				return 0, fmt.Errorf("size %q out of range", s)
			}
			return ByteSize(n * u.mult), nil
		}
	}
	return 0, fmt.Errorf("size %q: want bytes or a number with KiB, MiB or GiB", s)
}

// String prints the size, e.g. "4MiB", "1000".
func (b ByteSize) String() string {
	for _, u := range sizeUnits[:3] {
		if b != 0 && int64(b)%u.mult == 0 {
			return strconv.FormatInt(int64(b)/u.mult, 10) + strings.ToUpper(u.suffixes[0][:1]) + "iB"
		}
	}
	return strconv.FormatInt(int64(b), 10)
}

// Set implements flag.Value.
func (b *ByteSize) Set(s string) error {
	v, err := ParseByteSize(s)
	if err != nil {
		return err
	}
	*b = v
	return nil
}
