package tempest

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// Status is a test's outcome in a subunit v2 stream.
type Status int

// The subunit v2 test statuses (the low three bits of a packet's flags).
const (
	StatusUndefined  Status = iota // no status: a packet carrying only a file
	StatusExists                   // enumeration (listed, not run)
	StatusInProgress               // started
	StatusSuccess
	StatusUnexpectedSuccess
	StatusSkip
	StatusFail
	StatusExpectedFailure
)

func (s Status) String() string {
	switch s {
	case StatusUndefined:
		return "undefined"
	case StatusExists:
		return "exists"
	case StatusInProgress:
		return "inprogress"
	case StatusSuccess:
		return "success"
	case StatusUnexpectedSuccess:
		return "uxsuccess"
	case StatusSkip:
		return "skip"
	case StatusFail:
		return "fail"
	case StatusExpectedFailure:
		return "xfail"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Packet is one event of a subunit v2 stream: a status change of a test,
// a piece of a file attached to it (traceback, skip reason, captured
// output), or both.
type Packet struct {
	TestID   string
	Status   Status
	Tags     []string
	MIMEType string
	FileName string
	File     []byte
	EOF      bool // the last piece of FileName
	Route    string
}

// subunit v2 framing (https://github.com/testing-cabal/subunit, README
// "Version 2"): signature, 16-bit flags, a variable-length packet length
// counting the whole packet, the optional fields in flag order, CRC32.
const (
	signature      = 0xB3
	versionMask    = 0xF000
	version2       = 0x2000
	flagTestID     = 0x0800
	flagRouteCode  = 0x0400
	flagTimestamp  = 0x0200
	flagRunnable   = 0x0100
	flagTags       = 0x0080
	flagFile       = 0x0040
	flagMIMEType   = 0x0020
	flagEOF        = 0x0010
	statusMask     = 0x0007
	maxPacketBytes = 4 << 20 // subunit caps a packet at 4 MiB
)

// ReadSubunit decodes a subunit v2 byte stream, calling fn for every
// packet in order. Bytes outside packets (output a worker wrote around
// the protocol) are skipped, as subunit's own parser passes them on as
// "stdout". A truncated last packet (a worker killed mid-write) ends the
// stream without an error; a checksum mismatch is an error.
func ReadSubunit(r io.Reader, fn func(Packet) error) error {
	br := bufio.NewReader(r)
	for {
		b, err := br.ReadByte()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if b != signature {
			continue
		}
		p, err := readPacket(br)
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(p); err != nil {
			return err
		}
	}
}

// readPacket reads the rest of a packet whose signature byte was read.
func readPacket(br *bufio.Reader) (Packet, error) {
	var head [2]byte
	if _, err := io.ReadFull(br, head[:]); err != nil {
		return Packet{}, err
	}
	flags := binary.BigEndian.Uint16(head[:])
	if flags&versionMask != version2 {
		return Packet{}, fmt.Errorf("subunit: packet version %#x, want 2", flags>>12)
	}
	length, lenBytes, err := readNumber(br)
	if err != nil {
		return Packet{}, err
	}
	consumed := 1 + len(head) + len(lenBytes)
	if length < consumed+4 || length > maxPacketBytes {
		return Packet{}, fmt.Errorf("subunit: bad packet length %d", length)
	}
	rest := make([]byte, length-consumed)
	if _, err := io.ReadFull(br, rest); err != nil {
		return Packet{}, err
	}
	body, sum := rest[:len(rest)-4], binary.BigEndian.Uint32(rest[len(rest)-4:])
	crc := crc32.NewIEEE()
	crc.Write([]byte{signature})
	crc.Write(head[:])
	crc.Write(lenBytes)
	crc.Write(body)
	if crc.Sum32() != sum {
		return Packet{}, fmt.Errorf("subunit: bad checksum %#x, packet says %#x", crc.Sum32(), sum)
	}

	d := decoder{buf: body}
	p := Packet{Status: Status(flags & statusMask), EOF: flags&flagEOF != 0}
	if flags&flagTimestamp != 0 {
		d.skip(4) // seconds
		d.number()
	}
	if flags&flagTestID != 0 {
		p.TestID = d.str()
	}
	if flags&flagTags != 0 {
		for n := d.number(); n > 0 && d.err == nil; n-- {
			p.Tags = append(p.Tags, d.str())
		}
	}
	if flags&flagMIMEType != 0 {
		p.MIMEType = d.str()
	}
	if flags&flagFile != 0 {
		p.FileName = d.str()
		p.File = d.bytes(d.number())
	}
	if flags&flagRouteCode != 0 {
		p.Route = d.str()
	}
	if d.err != nil {
		return Packet{}, fmt.Errorf("subunit: packet of %q: %w", p.TestID, d.err)
	}
	return p, nil
}

// readNumber reads a subunit variable-length number: the top two bits of
// the first byte say how many bytes follow (0-3), the rest is the value,
// big-endian. It returns the raw bytes too (the checksum covers them).
func readNumber(br *bufio.Reader) (int, []byte, error) {
	first, err := br.ReadByte()
	if err != nil {
		return 0, nil, err
	}
	raw := []byte{first}
	for range int(first >> 6) {
		b, err := br.ReadByte()
		if err != nil {
			return 0, nil, err
		}
		raw = append(raw, b)
	}
	return numberValue(raw), raw, nil
}

func numberValue(raw []byte) int {
	v := int(raw[0] & 0x3F)
	for _, b := range raw[1:] {
		v = v<<8 | int(b)
	}
	return v
}

// decoder reads the fields of a packet body; the first error sticks.
type decoder struct {
	buf []byte
	err error
}

func (d *decoder) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.buf) {
		d.err = io.ErrUnexpectedEOF
		return nil
	}
	b := d.buf[:n]
	d.buf = d.buf[n:]
	return b
}

func (d *decoder) skip(n int) { d.take(n) }

func (d *decoder) number() int {
	if d.err != nil || len(d.buf) == 0 {
		if d.err == nil {
			d.err = io.ErrUnexpectedEOF
		}
		return 0
	}
	raw := d.take(1 + int(d.buf[0]>>6))
	if raw == nil {
		return 0
	}
	return numberValue(raw)
}

func (d *decoder) bytes(n int) []byte { return d.take(n) }

func (d *decoder) str() string { return string(d.take(d.number())) }
