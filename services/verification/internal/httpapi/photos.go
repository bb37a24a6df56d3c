package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"mime/multipart"
	"net/http"
	"strconv"
	"time"

	"github.com/gabriel-vasile/mimetype"
	"github.com/rwcarlsen/goexif/exif"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/envelope"
	"github.com/kycfield/kyc/pkg/ids"
	"github.com/kycfield/kyc/pkg/kitserver"
	"github.com/kycfield/kyc/pkg/objstore"
	"github.com/kycfield/kyc/services/verification/internal/photohash"
	"github.com/kycfield/kyc/services/verification/internal/verification"
)

// PhotoStore keeps the photo files (objstore.Bucket).
type PhotoStore interface {
	Put(ctx context.Context, key string, r io.Reader, contentType string, max int64) (int64, error)
	Get(ctx context.Context, key string) (io.ReadCloser, error)
	Remove(ctx context.Context, key string)
}

// Photo upload limits and error codes.
const (
	MaxPhoto            = 10 << 20
	exifWindow          = 256 << 10 // EXIF sits in a JPEG's first segment (at most 64 KiB)
	CodeFileTooLarge    = "FILE_TOO_LARGE"
	CodeUnsupportedFile = "UNSUPPORTED_FILE_TYPE"
	photoFieldLimit     = 256
)

var photoTypes = map[string]string{"image/jpeg": ".jpg", "image/png": ".png"}

// photoForm is what the multipart body holds besides the file.
type photoForm struct {
	tag, capturedAt               string
	latitude, longitude, accuracy string
}

// photoUpload is a photo already streamed into the store, with the
// agent's form, for the agent's task.
type photoUpload struct {
	agent     verification.FieldAgent
	addressID string
	photo     verification.Photo
	idem      verification.Idem
}

// decodePhoto streams the photo into the store as the body arrives (never
// more than a bounded buffer in memory), reads its real type from its
// bytes and its EXIF GPS and time where present, and checks the form.
//
// Unlike the other decoders it has an effect, the stored file, because
// the file must go somewhere before the fields after it are read: a
// decode that fails removes it, and addPhoto removes it when the photo is
// refused or was a retry. A file nothing refers to (a crash in between)
// was announced first, so the orphan sweeper deletes it later.
func decodePhoto(svc *verification.Service, store PhotoStore) func(context.Context, *http.Request) (photoUpload, error) {
	return func(ctx context.Context, req *http.Request) (photoUpload, error) {
		up := photoUpload{agent: agentOf(ctx), addressID: req.PathValue("addressId")}
		form, digest, err := readPhoto(ctx, req, svc, store, &up)
		if err == nil {
			err = form.apply(&up.photo)
		}
		if err == nil {
			up.idem, err = idemOf(req, []byte(digest+"|"+form.tag+"|"+form.capturedAt+"|"+form.latitude+"|"+form.longitude+"|"+form.accuracy))
		}
		if err != nil && up.photo.ObjectKey != "" {
			store.Remove(ctx, up.photo.ObjectKey) // nothing will refer to it
		}
		return up, err
	}
}

// readPhoto reads the multipart body: the first file part is stored (on
// up.photo), the other parts are the form.
func readPhoto(ctx context.Context, req *http.Request, svc *verification.Service, store PhotoStore, up *photoUpload) (photoForm, string, error) {
	var form photoForm
	var digest string
	mr, err := req.MultipartReader()
	if err != nil {
		return form, "", apperr.New(apperr.KindUnsupported, apperr.CodeUnsupportedMedia, "Send the photo as multipart/form-data with a file part")
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return form, "", tooLargeOr(err, apperr.New(apperr.KindInvalid, apperr.CodeValidation, "The multipart body could not be read"))
		}
		if part.FormName() == "file" && up.photo.ObjectKey == "" {
			// Nothing is stored for a task that is not the agent's own and
			// under way; the key is built from the id checked here.
			if err := svc.CanAddPhoto(ctx, up.agent, up.addressID, req.Header.Get("Idempotency-Key")); err != nil {
				return form, "", err
			}
			if up.photo, digest, err = storeFile(ctx, svc, store, part, up.agent.ID, up.addressID); err != nil {
				return form, "", err
			}
			continue
		}
		if err := form.set(part); err != nil {
			return form, "", err
		}
	}
	if up.photo.ObjectKey == "" {
		return form, "", apperr.Validation(apperr.Detail{Field: "file", Message: "is required: the photo as a JPEG or PNG file part"})
	}
	return form, digest, nil
}

// addPhoto records a stored photo on the agent's visit under way.
func addPhoto(ctx context.Context, svc *verification.Service, store PhotoStore, up photoUpload) (kitserver.Result, error) {
	stored, err := svc.AddPhoto(ctx, up.agent, up.addressID, up.photo, up.idem)
	if err != nil || stored.ID != up.photo.ID {
		store.Remove(ctx, up.photo.ObjectKey) // refused, or a retry of a photo stored before
	}
	if err != nil {
		return kitserver.Result{}, err
	}
	return kitserver.Result{Status: http.StatusCreated, Message: "Photo stored", Data: photoView(stored)}, nil
}

func tooLargeOr(err, other error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return apperr.New(apperr.KindTooLarge, CodeFileTooLarge, fmt.Sprintf("A photo may be at most %d MiB", MaxPhoto>>20))
	}
	return other
}

// storeFile sniffs the file's type from its first bytes, streams it to
// the store and reads its EXIF from the head it kept.
func storeFile(ctx context.Context, svc *verification.Service, store PhotoStore, part *multipart.Part, agentID, addressID string) (verification.Photo, string, error) {
	head := make([]byte, 3072)
	n, err := io.ReadFull(part, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return verification.Photo{}, "", tooLargeOr(err, apperr.New(apperr.KindInvalid, apperr.CodeValidation, "The file could not be read"))
	}
	mt := mimetype.Detect(head[:n]).String()
	ext, ok := photoTypes[mt]
	if !ok {
		return verification.Photo{}, "", apperr.New(apperr.KindUnsupported, CodeUnsupportedFile,
			"A photo must be a JPEG or PNG file (judged by its content, not its name)")
	}
	p := verification.Photo{ID: ids.New("pho"), ContentType: mt}
	p.ObjectKey = "agents/" + agentID + "/" + addressID + "/" + p.ID + ext
	if err := svc.AnnouncePhoto(ctx, p.ObjectKey); err != nil {
		return p, "", err
	}
	// The file is fingerprinted as it streams (SHA-256, perceptual hash)
	// for PHOTO_REUSED, never read back.
	sum, perceptual := sha256.New(), photohash.NewStream()
	kept := &capped{max: exifWindow}
	body := io.TeeReader(io.MultiReader(bytes.NewReader(head[:n]), part), io.MultiWriter(sum, kept, perceptual))
	size, err := store.Put(ctx, p.ObjectKey, body, mt, MaxPhoto)
	p.Hash = &verification.PhotoHash{SHA256: sum.Sum(nil)}
	if h, ok := perceptual.Sum(err); ok {
		p.Hash.Perceptual = &h
	}
	if errors.Is(err, objstore.ErrTooLarge) {
		return p, "", apperr.New(apperr.KindTooLarge, CodeFileTooLarge, fmt.Sprintf("A photo may be at most %d MiB", MaxPhoto>>20))
	}
	if err != nil {
		return p, "", tooLargeOr(err, err)
	}
	p.Size = size
	p.Exif = readExif(kept.Bytes())
	return p, hex.EncodeToString(p.Hash.SHA256), nil
}

// readExif returns the GPS position and capture time a photo's metadata
// records, or nil when it has none (Android strips GPS from photos handed
// to a browser).
func readExif(b []byte) *verification.Exif {
	x, err := exif.Decode(bytes.NewReader(b))
	if err != nil {
		return nil
	}
	var e verification.Exif
	if lat, lng, err := x.LatLong(); err == nil {
		e.Latitude, e.Longitude = &lat, &lng
	}
	if t, err := x.DateTime(); err == nil {
		// EXIF records the camera's wall clock without a zone; the phones
		// are in Nigeria (WAT, UTC+1, no daylight saving).
		t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, verification.Lagos).UTC()
		e.Taken = &t
	}
	if e.Latitude == nil && e.Taken == nil {
		return nil
	}
	return &e
}

// capped keeps the first max bytes written to it.
type capped struct {
	bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.Len(); room > 0 {
		c.Buffer.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (f *photoForm) set(part *multipart.Part) error {
	b, err := io.ReadAll(io.LimitReader(part, photoFieldLimit+1))
	if err != nil || len(b) > photoFieldLimit {
		return apperr.Validation(apperr.Detail{Field: part.FormName(), Message: "must be a short text field"})
	}
	v := string(b)
	switch part.FormName() {
	case "tag":
		f.tag = v
	case "capturedAt":
		f.capturedAt = v
	case "latitude":
		f.latitude = v
	case "longitude":
		f.longitude = v
	case "accuracy":
		f.accuracy = v
	default:
		return apperr.Validation(apperr.Detail{Field: part.FormName(), Message: "unknown field"})
	}
	return nil
}

// apply checks the form and puts it on p: the device's own position and
// time at capture, recorded by the app.
func (f photoForm) apply(p *verification.Photo) error {
	var d []apperr.Detail
	p.Tag, p.CapturedAt = f.tag, time.Now().UTC()
	if f.tag == "" {
		d = append(d, apperr.Detail{Field: "tag", Message: fmt.Sprintf("is required, one of %v", verification.PhotoTags)})
	}
	if f.capturedAt != "" {
		t, err := time.Parse(time.RFC3339, f.capturedAt)
		if err != nil {
			d = append(d, apperr.Detail{Field: "capturedAt", Message: "must be an RFC 3339 time"})
		}
		p.CapturedAt = t.UTC()
	}
	if f.latitude != "" || f.longitude != "" {
		lat, e1 := strconv.ParseFloat(f.latitude, 64)
		lng, e2 := strconv.ParseFloat(f.longitude, 64)
		acc, e3 := strconv.ParseFloat(orZero(f.accuracy), 64)
		// Written as ranges so that NaN and the infinities, which
		// ParseFloat accepts and JSON cannot carry, are refused too.
		if e1 != nil || e2 != nil || e3 != nil || !within(lat, -90, 90) || !within(lng, -180, 180) || !within(acc, 0, math.MaxFloat64) {
			d = append(d, apperr.Detail{Field: "latitude", Message: "latitude, longitude and accuracy must be numbers in degrees and metres"})
		}
		p.Device = &verification.Point{Latitude: lat, Longitude: lng, Accuracy: acc}
	}
	if len(d) > 0 {
		return apperr.Validation(d...)
	}
	return nil
}

func within(v, lo, hi float64) bool { return v >= lo && v <= hi }

func orZero(s string) string {
	if s == "" {
		return "0"
	}
	return s
}

// photoView is a stored photo as the agent app sees it.
func photoView(p verification.Photo) map[string]any {
	return map[string]any{"id": p.ID, "tag": p.Tag, "capturedAt": envelope.Timestamp(p.CapturedAt), "size": p.Size,
		"contentType": p.ContentType, "device": p.Device, "exif": p.Exif}
}
